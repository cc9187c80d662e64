const unresolved = { reason: 'the name does not resolve', remedy: 'set HOST to an address or a resolvable name of this machine' };

/** Why listening failed, in words, and the settings that choose what to listen on instead. */
const remedies: Readonly<Record<string, { readonly reason: string; readonly remedy: string }>> = {
  EADDRINUSE: { reason: 'address in use', remedy: 'set PORT (or HOST) to a free address' },
  EACCES: { reason: 'permission denied', remedy: 'set PORT to 1024 or above, or give this user the right to bind low ports' },
  EADDRNOTAVAIL: { reason: 'no address of this machine', remedy: 'set HOST to an address of this machine, or 0.0.0.0 for all' },
  ENOTFOUND: unresolved,
  EAI_AGAIN: unresolved,
};

/**
 * The start-up error for a failed listen: one line naming the address and the settings to
 * change (docs/operations.md "Production runbook"), where Node's own message names only the
 * errno. Any other failure is returned as it was.
 */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const known = code !== undefined && Object.hasOwn(remedies, code) ? remedies[code] : undefined;
  if (!known) return error;
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Error(`cannot listen on ${address} (${known.reason}, ${code}): ${known.remedy}`);
}
