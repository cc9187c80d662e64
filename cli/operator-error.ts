/**
 * A refusal or failure of an operator command with a stable `code`, printed as
 * `{ "error": code, "detail": message }` (exit 1). Messages are for the operator: they
 * name the file, table or setting concerned, never a stack.
 */
export class OperatorError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}
