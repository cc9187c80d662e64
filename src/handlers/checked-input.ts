import type { ActionInput } from '../actions/action.js';

/** The body of a call, which the executor checked against the action's `schemas.body`. */
export const checkedBody = <T>(input: ActionInput): T => input.body as T;
/** The query of a call, which the executor checked against the action's `schemas.query`. */
export const checkedQuery = <T>(input: ActionInput): T => input.query as T;
