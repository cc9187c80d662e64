import { createHash, randomBytes } from 'node:crypto';

/**
 * A fresh strong ETag for a record's new version: SHA-256 over 128 random bits, quoted. It
 * says nothing about the content, so it cannot confirm guesses of fields the caller may not
 * read; every write gets a new value, so a stale If-Match never matches again (no ABA).
 */
export function nextEtag(): string {
  return `"${createHash('sha256').update(randomBytes(16)).digest('base64url')}"`;
}

/**
 * JSON with object keys sorted, so equal values serialise equally (idempotency fingerprints).
 * Written with a stack of its own rather than recursion: a request body nested thousands of
 * levels deep reaches it before any schema has refused it, and must not overflow the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // What is still to write, the next on top: literal text (a bracket, a comma, a key) or a value.
  const todo: ({ readonly text: string } | { readonly value: unknown })[] = [{ value }];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const current = next.value;
    if (Array.isArray(current)) {
      todo.push({ text: ']' });
      for (let i = current.length - 1; i >= 0; i -= 1) {
        todo.push({ value: current[i] as unknown });
        if (i > 0) todo.push({ text: ',' });
      }
      todo.push({ text: '[' });
    } else if (current && typeof current === 'object') {
      const keys = Object.keys(current).sort();
      todo.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] ?? '';
        todo.push({ value: (current as Record<string, unknown>)[key] });
        todo.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
      todo.push({ text: '{' });
    } else out.push(JSON.stringify(current) ?? 'null');
  }
  return out.join('');
}
