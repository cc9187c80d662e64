/**
 * The regular-expression syntax both engines read alike. SQLite evaluates `$regex` with
 * RE2 (`re2_match`), PostgreSQL with its own ARE engine (`~`). Many RE2 escapes are
 * errors in ARE (`\z`, `\pL`, `\Q…\E`, `\x{41}`, named groups, inline flags after the
 * start) and `\b` even changes meaning (word boundary in RE2, backspace in ARE). Accepting
 * only the common subset keeps results identical and turns what would be a PostgreSQL
 * error (500) into a 400.
 *
 * Accepted: literals, `.`, `^`, `$`, `|`, groups `( )` and `(?: )`, quantifiers `* + ?` and
 * `{n}`, `{n,}`, `{n,m}` (n, m ≤ 255, PostgreSQL's limit) with optional lazy `?` on anything
 * but a bare anchor, the
 * classes `\d \D \w \W \s \S`, the escapes `\t \n \r \f \v`, any escaped punctuation, and
 * bracket expressions of literals, ranges and escaped characters.
 */
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const CONTROL_ESCAPES = new Set(['t', 'n', 'r', 'f', 'v']);
const QUANTIFIER = /^\{(\d{1,3})(,(\d{1,3})?)?\}/;
const MAX_REPEAT = 255;

/** Why `pattern` falls outside the portable subset, or `undefined` when it does not. */
export function portableRegexProblem(pattern: string): string | undefined {
  for (let i = 0, afterAnchor = false; i < pattern.length; i += 1) {
    const char = pattern[i] ?? '';
    // RE2 repeats an anchor (`^*`, `$+`, `^{2}`); PostgreSQL refuses to compile that.
    if (afterAnchor && (char === '*' || char === '+' || char === '?' || char === '{')) return `an anchor (^ or $) cannot be repeated (${char} after it)`;
    afterAnchor = char === '^' || char === '$';
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/^\d$/.test(next)) return 'backreferences are not supported';
      if (!CLASS_ESCAPES.has(next) && !CONTROL_ESCAPES.has(next) && !ASCII_PUNCTUATION.test(next)) return `unsupported escape \\${next}`;
      i += 1;
    } else if (char === '(' && pattern[i + 1] === '?') {
      if (pattern[i + 2] !== ':') return 'only (?: ) groups are supported (no flags, names or lookaround)';
    } else if (char === '{') {
      const match = QUANTIFIER.exec(pattern.slice(i));
      if (!match) return 'a literal { must be escaped as \\{';
      if (Number(match[1]) > MAX_REPEAT || Number(match[3] ?? 0) > MAX_REPEAT) return `repeat counts above ${MAX_REPEAT}`;
      i += match[0].length - 1;
    } else if (char === '}') {
      return 'a literal } must be escaped as \\}';
    } else if (char === '[') {
      const end = bracketEnd(pattern, i);
      if (typeof end === 'string') return end;
      i = end;
    }
  }
  return undefined;
}

/** Index of the `]` closing the bracket expression at `start`, or the problem found. */
function bracketEnd(pattern: string, start: number): number | string {
  let i = start + 1;
  if (pattern[i] === '^') i += 1;
  let previousLiteral = false;
  for (let first = true; i < pattern.length; i += 1, first = false) {
    const char = pattern[i];
    if (char === ']' && !first) return i;
    if (char === ']' || char === '[') return `a literal ${char} in brackets must be escaped`;
    if (char === '-' && !first && pattern[i + 1] !== ']') {
      // Only `a-z` style ranges; a `-` right after a range (`[a-z-0]`) is an error in PostgreSQL.
      const high = pattern[i + 1] === '\\' ? pattern[i + 2] : pattern[i + 1];
      const badHigh = high === undefined || (pattern[i + 1] === '\\' && !ASCII_PUNCTUATION.test(high));
      if (!previousLiteral || badHigh) return 'invalid range in brackets (escape a literal - as \\-)';
      i += pattern[i + 1] === '\\' ? 2 : 1;
      previousLiteral = false;
      continue;
    }
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      // Class escapes inside brackets are not portable (`[\d-z]` is an error in PostgreSQL).
      if (!CONTROL_ESCAPES.has(next) && !ASCII_PUNCTUATION.test(next)) return `unsupported escape \\${next} in brackets`;
      i += 1;
    }
    previousLiteral = true;
  }
  return 'missing ]';
}

/** ASCII meanings, as RE2 has them; PostgreSQL's follow the database locale. */
const CLASS_EXPANSIONS: Readonly<Record<string, string>> = {
  d: '[0-9]',
  D: '[^0-9]',
  w: '[0-9A-Za-z_]',
  W: '[^0-9A-Za-z_]',
  s: '[\\t\\n\\f\\r ]',
  S: '[^\\t\\n\\f\\r ]',
};

/**
 * The form of a pattern accepted by {@link portableRegexProblem} that both engines
 * evaluate alike: `(?s)` first, so `.` matches a newline in RE2 as it does in PostgreSQL
 * (where `(?s)` is the default, accepted at the start), and `\d \w \s` spelled out as ASCII
 * classes, since PostgreSQL's depend on the locale.
 */
export function portablePattern(pattern: string): string {
  let out = '(?s)';
  let inBrackets = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] ?? '';
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      out += (!inBrackets && CLASS_EXPANSIONS[next]) || `\\${next}`;
      i += 1;
      continue;
    }
    if (char === '[' && !inBrackets) {
      inBrackets = true;
      out += char;
      // A leading `^` (and the checker's rule that `]` never comes first) cannot close it.
      if (pattern[i + 1] === '^') {
        out += '^';
        i += 1;
      }
      continue;
    }
    if (char === ']' && inBrackets) inBrackets = false;
    out += char;
  }
  return out;
}
