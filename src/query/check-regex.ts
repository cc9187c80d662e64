import { RE2JS } from 're2js';
import { MAX_REGEX_LENGTH } from './limits.js';
import { portablePattern, portableRegexProblem } from './portable-regex.js';
import { queryError } from './query-error.js';

/**
 * Refuses a `$regex` pattern that is too long, outside the syntax both databases read alike
 * (see `portable-regex.ts`), or not valid RE2. RE2 matches in linear time, so accepted
 * patterns cannot cause catastrophic backtracking; backreferences and lookaround, which
 * would need backtracking, are refused.
 */
export function checkRegex(pattern: string, caseInsensitive: boolean, path: string): void {
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw queryError(path, `regular expression longer than ${MAX_REGEX_LENGTH} characters`);
  }
  const problem = portableRegexProblem(pattern);
  if (problem !== undefined) throw queryError(path, `unsupported regular expression syntax: ${problem}`);
  try {
    RE2JS.compile(portablePattern(pattern), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    // RE2's reason (bounded: it quotes at most the pattern the client sent) helps fix it.
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'syntax error';
    throw queryError(path, `invalid RE2 regular expression (no backreferences or lookaround): ${reason}`);
  }
}
