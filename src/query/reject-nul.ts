import type { FilterNode } from './filter-ast.js';
import type { QueryString } from './list-query.js';
import { queryError } from './query-error.js';

const NUL = '\u0000';
const message = 'must not contain NUL characters';

/**
 * Refuses NUL characters in filter values. PostgreSQL text cannot hold NUL at all: bound as
 * a parameter it fails the whole statement ("invalid byte sequence"), a 500 where a 400
 * belongs. Stored strings never contain NUL (bodies refuse it), so nothing is lost.
 *
 * @throws ApiError `validation_failed` (400) naming the parameter or `where.<field>`
 */
export function rejectNul(query: QueryString, where: FilterNode | null): void {
  for (const [name, value] of Object.entries(query)) {
    const values = typeof value === 'string' ? [value] : (value ?? []);
    if (values.some((text) => text.includes(NUL))) throw queryError(name, message);
  }
  // Iterative walk: `where` may arrive with escaped NULs (`\u0000`) at any depth.
  const stack: FilterNode[] = where ? [where] : [];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.kind === 'not') stack.push(node.child);
    else if (node.kind !== 'cmp') stack.push(...node.children);
    else {
      const values: readonly unknown[] = Array.isArray(node.value) ? node.value : [node.value];
      if (values.some((value) => typeof value === 'string' && value.includes(NUL))) throw queryError(`where.${node.field}`, message);
    }
  }
}
