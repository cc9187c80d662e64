/**
 * `cluster`: `get-bearer` and `token-bearer` against the service on 1 and then `--workers`
 * node:cluster workers sharing the port and the storage. Each worker has its own token
 * cache, so a token issued by one worker is verified once by each other worker it reaches.
 * Peak RSS is the sum over the primary and its workers.
 */
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { prepareGet } from './get-product.js';
import { prepareServiceTokens } from './token.js';

export async function clusterScenario(ctx: BenchContext): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const workers of [1, ctx.options.workers]) {
    results.push(await runAgainstService(ctx, `cluster-${workers}w get-bearer`, () => prepareGet(ctx, false), workers));
    results.push(await runAgainstService(ctx, `cluster-${workers}w token-bearer`, () => prepareServiceTokens(ctx, false), workers));
  }
  return results;
}
