import type { Clock } from '../../src/core/clock.js';
import { createHarness, crud } from './harness.js';
import type { Harness } from './harness.js';
import { freePort } from './free-port.js';

export { crud };

/** What an integrator holds after registering a client: its id, key id and private key PEM. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly kid: string;
  readonly privateKey: string;
  readonly tenantId: string;
}

/** The real service on SQLite, listening on a free port with `PUBLIC_URL` = its origin. */
export interface ListeningService {
  readonly h: Harness;
  readonly origin: string;
  /** A new tenant and a client in it holding `capabilities`. */
  credentials(capabilities: readonly string[]): Promise<ClientCredentials>;
  close(): Promise<void>;
}

/**
 * Starts the service. `publicUrl` replaces the listening origin as `PUBLIC_URL` (for a proxy
 * in front); `clock` is the service's own clock.
 */
export async function listeningService(options: { env?: Record<string, string>; clock?: Clock; publicUrl?: string } = {}): Promise<ListeningService> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createHarness('sqlite', { env: { PUBLIC_URL: options.publicUrl ?? origin, ...options.env }, ...(options.clock ? { clock: options.clock } : {}) });
  await h.app.server.listen({ port, host: '127.0.0.1' });
  return {
    h,
    origin,
    async credentials(capabilities) {
      const tenantId = await h.tenant(`Tenant ${Math.random().toString(36).slice(2, 8)}`);
      const client = await h.client(tenantId, capabilities);
      return { clientId: client.clientId, kid: client.kid, privateKey: client.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), tenantId };
    },
    close: () => h.close(),
  };
}

/** The global `fetch`, recording the method and path of every request it sends. */
export function recordingFetch(): { fetch: typeof fetch; calls: string[]; count(pathPart: string): number } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      calls.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`);
      return fetch(input, init);
    },
    count: (pathPart) => calls.filter((c) => c.includes(pathPart)).length,
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.now()): { now(): number; advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}
