/** `create`: `POST /v1/products`, one insert and its audit entry in one transaction per request. */
import { productBody } from '../fixtures.js';
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';

export function createScenario(ctx: BenchContext): Promise<ScenarioResult> {
  return runAgainstService(ctx, 'create', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, ctx.fixtures.client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = JSON.stringify(productBody(7));
    await (await preflight(`${ctx.origin}/v1/products`, { method: 'POST', headers, body }, 201)).arrayBuffer();
    return { spec: { origin: ctx.origin, connections: ctx.options.connections, request: { method: 'POST', path: '/v1/products', headers, body } } };
  });
}
