import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import { rateLimitPolicies } from '../edge/rate-limit.js';
import type { Metrics } from '../observability/metrics.js';
import { MetricsAccess } from '../observability/metrics-access.js';
import { packageInfo } from '../observability/package-info.js';
import { securityPosture } from '../posture/posture.js';
import { SbomFile } from '../posture/sbom.js';
import type { Clock } from '../core/clock.js';
import { metricsRoutes } from './metrics.js';
import { securityRoutes } from './security.js';
import { securityTxtRoutes } from './security-txt.js';
import { statusRoutes } from './status.js';

export interface OperationsDeps {
  readonly config: Config;
  readonly database: Database;
  readonly state: { readonly shuttingDown: boolean };
  readonly clock: Clock;
  /** When the app was built (milliseconds since the epoch). */
  readonly startedAt: number;
  readonly metrics: Metrics;
  /** Log fields the logger censors (reported by the posture). */
  readonly redactedPaths: readonly string[];
  /** What signs access tokens (reported by the posture). */
  readonly tokenSigner: string;
}

/**
 * The operational and security surface: `/metrics`, `/status`,
 * `/.well-known/security.txt` and `/v1/security/{json,sbom,questionnaire}`.
 */
export function operationsRoutes(deps: OperationsDeps) {
  const { config } = deps;
  const access = new MetricsAccess(config);
  const { version, root } = packageInfo();
  const posture = () =>
    securityPosture({
      config,
      storage: deps.database.dialect.name,
      version,
      metrics: { protection: access.protection, allowedNetworks: access.allowedNetworks },
      ...(config.rateLimitEnabled ? { rateLimits: rateLimitPolicies(config) } : {}),
      redactedLogFields: deps.redactedPaths,
      tokenSigner: deps.tokenSigner,
      now: deps.clock.now(),
    });
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(metricsRoutes(deps.metrics, access));
    await app.register(statusRoutes({ database: deps.database, state: deps.state, clock: deps.clock, startedAt: deps.startedAt }));
    await app.register(securityTxtRoutes(config, deps.startedAt));
    await app.register(securityRoutes({ posture, sbom: new SbomFile(root) }));
  };
}
