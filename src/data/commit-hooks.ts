import type { Db } from '../db/dialect.js';
import type { RequestContext } from '../core/request-context.js';

/** A record a unit of work inserted. */
export interface InsertedRecord {
  readonly resource: string;
  readonly id: string;
}

/**
 * What must commit with a request's change, in its very transaction: an `Idempotency-Key`
 * is marked as used by the change it answers for (docs/api.md "Idempotency"), so a commit is
 * either the change with its mark or neither.
 */
export type CommitHook = (trx: Db, inserted: readonly InsertedRecord[]) => Promise<void>;

const hooks = new WeakMap<RequestContext, CommitHook>();

/** `context` whose every unit of work runs `hook` last, before it commits. A copy: the binding lives as long as the request's context. */
export function withCommitHook(context: RequestContext, hook: CommitHook): RequestContext {
  const bound: RequestContext = { ...context };
  hooks.set(bound, hook);
  return bound;
}

/** The hook `context` was bound to, if any. */
export function commitHookOf(context: RequestContext): CommitHook | undefined {
  return hooks.get(context);
}
