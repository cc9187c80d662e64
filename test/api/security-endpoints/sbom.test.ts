import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../../src/http/error-handler.js';
import { SbomFile } from '../../../src/posture/sbom.js';
import { securityRoutes } from '../../../src/routes/security.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';
import { ensureSbom } from './ensure-sbom.js';

interface Component {
  readonly name: string;
  readonly group?: string;
  readonly version: string;
  readonly purl?: string;
  readonly components?: readonly Component[];
}

function flatten(components: readonly Component[] = []): Component[] {
  return components.flatMap((c) => [c, ...flatten(c.components)]);
}

const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { version: string }> };

describe('GET /v1/security/sbom', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    ensureSbom();
    h = await createHarness('sqlite');
    token = await h.bearer(null, ['security:read']);
  });
  afterAll(() => h.close());

  it('serves a CycloneDX document that validates against the JSON schema of its spec version', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/security/sbom', token });
    expect(res.statusCode).toBe(200);
    const bom = res.json() as { bomFormat: string; specVersion: string; metadata: { component: Component } };
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(res.headers['content-type']).toBe(`application/vnd.cyclonedx+json; version=${bom.specVersion}`);
    const version = Object.values(Spec.Version).find((v) => v === bom.specVersion);
    if (!version) throw new Error(`unknown CycloneDX spec version ${bom.specVersion}`);
    const validator = new Validation.JsonStrictValidator(version);
    expect(await validator.validate(res.body)).toBeNull();
    expect(bom.metadata.component).toMatchObject({ name: 'booking-service' });
  });

  it('lists the shipped dependencies with the versions of package-lock.json, and no dev tools', async () => {
    const bom = (await h.request({ method: 'GET', url: '/v1/security/sbom', token })).json() as { components: Component[] };
    const all = flatten(bom.components);
    for (const name of ['fastify', 'kysely', 'jose', 'pg', 'better-sqlite3', 'prom-client']) {
      const version = lock.packages[`node_modules/${name}`]?.version;
      expect(version, `${name} in package-lock.json`).toBeDefined();
      const component = all.find((c) => c.name === name && !c.group);
      expect(component, `${name} in the SBOM (stale? run npm run sbom)`).toMatchObject({ version, purl: `pkg:npm/${name}@${version}` });
    }
    for (const dev of ['vitest', 'typescript', 'eslint', 'playwright-core'])
      expect(
        all.some((c) => c.name === dev),
        dev,
      ).toBe(false);
  });

  it('is a 503 problem, never generated on demand, when the build has no SBOM', async () => {
    const emptyRoot = mkdtempSync(join(tmpdir(), 'no-sbom-'));
    const app = Fastify({ logger: false });
    app.setErrorHandler(errorHandler);
    await app.register(
      securityRoutes({
        posture: () => {
          throw new Error('the posture is not asked for here');
        },
        sbom: new SbomFile(emptyRoot),
      }),
    );
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/security/sbom' });
      expectProblem(res, 503, 'service_unavailable');
      expect(readdirSync(emptyRoot)).toEqual([]);
    } finally {
      await app.close();
      rmSync(emptyRoot, { recursive: true, force: true });
    }
  });
});
