import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';
import { questionnaire } from '../posture/questionnaire.js';
import type { SecurityPosture } from '../posture/posture.js';
import type { SbomFile } from '../posture/sbom.js';

export interface SecurityRouteDeps {
  /** Computes the posture afresh (it carries `generated_at`). */
  readonly posture: () => SecurityPosture;
  readonly sbom: SbomFile;
}

/**
 * `GET /v1/security/json` (posture), `/v1/security/sbom` (CycloneDX) and
 * `/v1/security/questionnaire`: for customers' security reviews, behind `security:read`
 * because the posture maps the deployment's defences.
 */
export function securityRoutes(deps: SecurityRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    const config = { capability: 'security:read' };
    app.get('/v1/security/json', { config }, async () => deps.posture());
    app.get('/v1/security/questionnaire', { config }, async () => questionnaire(deps.posture()));
    app.get('/v1/security/sbom', { config }, async (_request, reply) => {
      const sbom = await deps.sbom.load();
      if (!sbom) throw new ApiError('service_unavailable', 'No SBOM was generated for this build', { privateReason: 'generated/sbom.cdx.json missing: run `npm run sbom` as part of the build' });
      return reply.header('content-type', sbom.contentType).send(sbom.body);
    });
  };
}
