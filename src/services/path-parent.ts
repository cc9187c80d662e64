import type { RequestContext } from '../core/request-context.js';

/** The parent record each sub-collection write names in its path, by the context its handler made ({@link withPathParent}). */
const parents = new WeakMap<RequestContext, string>();

/**
 * `context` for a write of a sub-collection under the record `parentId` (a product's rates
 * or calendar imports, `/v1/products/{id}/…`): the resource hooks read the parent from it,
 * since the parent's id is server-owned and never in the body. A copy, so the binding lives
 * exactly as long as the write's unit of work holds it.
 */
export function withPathParent(context: RequestContext, parentId: string): RequestContext {
  const bound: RequestContext = { ...context };
  parents.set(bound, parentId);
  return bound;
}

/** The parent `context` was bound to, if any. */
export function pathParentOf(context: RequestContext): string | undefined {
  return parents.get(context);
}
