/**
 * Operators that run code or arbitrary expressions in MongoDB. They mean nothing here, but
 * are named in the refusal so that probing clients and security scanners get a clear answer.
 */
export const blockedOperators: ReadonlySet<string> = new Set(['$where', '$expr', '$function']);
