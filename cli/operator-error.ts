/**
 * A refusal or failure of an operator command with a stable `code`, printed as
 * `{ "error": code, "detail": message }` (exit 1; exit 2 for the code `usage`, see
 * `usageError`). Messages are for the operator: they name the file, table or setting
 * concerned, never a stack.
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

/**
 * The command line itself is wrong, whatever the storage holds: an unknown command or
 * action, an unknown, missing or malformed option, options that exclude or need each other.
 * Printed as `{ "error": "usage", "detail", "errors"? }` with the usage text on stderr, exit
 * status 2. A well-formed command the service refuses (an unknown tenant, a value its
 * validation rejects, a file that exists) is a refusal instead: exit status 1.
 */
export function usageError(detail: string, field?: string, message = detail): OperatorError {
  return new OperatorError('usage', detail, field === undefined ? undefined : { errors: [{ field, message }] });
}

export function isUsageError(error: unknown): error is OperatorError {
  return error instanceof OperatorError && error.code === 'usage';
}

/** The value of a required option, or a usage error naming the flag. */
export function requireOption(value: string | undefined, flag: string, hint = ''): string {
  if (value === undefined || value === '') throw usageError(`${flag} is required${hint}`, flag, `is required${hint}`);
  return value;
}

/** Exit status of a command that threw `error`: 2 for a usage error, else 1. */
export function exitStatusOf(error: unknown): 1 | 2 {
  return isUsageError(error) ? 2 : 1;
}
