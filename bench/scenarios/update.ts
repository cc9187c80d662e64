/**
 * `update`: `PATCH /v1/products/{id}` with `If-Match`. Each connection owns one product
 * and chains ETags: the next request carries the ETag of its previous response, as a
 * client doing read-modify-write on its own record would. So every request succeeds (no
 * 412 from a race) and no extra GET is measured. Before each phase the current ETags are
 * read again, because a request cut off at the end of the previous phase may still have
 * been applied.
 */
import type { AutocannonRequest } from 'autocannon';
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';

interface Chain {
  readonly id: string;
  etag: string;
  sent: number;
  healing: boolean;
}

export function updateScenario(ctx: BenchContext): Promise<ScenarioResult> {
  return runAgainstService(ctx, 'update', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, ctx.fixtures.client);
    const auth = { authorization: `Bearer ${token}` };
    const chains: Chain[] = ctx.fixtures.updateProductIds.map((id) => ({ id, etag: '', sent: 0, healing: false }));
    const read = async (chain: Chain) => {
      const response = await preflight(`${ctx.origin}/v1/products/${chain.id}`, { headers: auth });
      await response.arrayBuffer();
      return response.headers.get('etag') ?? '';
    };
    const refresh = async () => {
      // Let PATCHes cut off with the previous phase's connections finish first.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const chain of chains) chain.etag = await read(chain);
    };
    // Should a chain still break (412), it is mended by a read; the 412s stay in the counts.
    const heal = (chain: Chain) => {
      if (chain.healing) return;
      chain.healing = true;
      void read(chain).then(
        (etag) => {
          chain.etag = etag;
          chain.healing = false;
        },
        () => (chain.healing = false),
      );
    };
    const requestsFor = (index: number): AutocannonRequest[] => {
      const chain = chains[index % chains.length];
      if (!chain) throw new Error('no product to update');
      return [
        {
          method: 'PATCH',
          path: `/v1/products/${chain.id}`,
          headers: { ...auth, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'if-match': chain.etag }, body: JSON.stringify({ total_items: (chain.sent++ % 1000) + 1 }) }),
          onResponse: (status, _body, _context, headers) => {
            if (status === 200 && typeof headers.etag === 'string') chain.etag = headers.etag;
            else if (status === 412) heal(chain);
          },
        },
      ];
    };
    return { spec: { origin: ctx.origin, connections: ctx.options.connections, perConnection: requestsFor }, beforePhase: refresh };
  });
}
