import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityPosture } from '../../../src/posture/posture.js';
import type { QuestionnaireAnswer } from '../../../src/posture/questionnaire.js';
import { autoEs512Choice } from '../../support/es512-signers.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const metricsSecret = 'posture-metrics-secret-0123456789';
const changed = {
  PUBLIC_URL: 'https://api.example.com',
  ACCESS_TOKEN_TTL_SECONDS: '300',
  CLOCK_SKEW_SECONDS: '30',
  KEY_OVERLAP_DAYS: '7',
  DPOP_NONCE: 'true',
  AUDIT_RETENTION_DAYS: '30',
  AUDIT_RETENTION_SECURITY_DAYS: '365',
  AUDIT_PURGE_INTERVAL_MINUTES: '0',
  BODY_LIMIT_BYTES: '65536',
  TRUST_PROXY: '10.0.0.0/8,192.168.0.0/16',
  CORS_ORIGINS: 'https://app.example.com',
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_TOKEN: '7',
  METRICS_TOKEN: metricsSecret,
  SECURITY_POLICY_URL: 'https://example.com/disclosure',
  OAUTH_PROVIDERS: JSON.stringify([{ id: 'corp', issuer: 'https://login.example.com', client_id: 'booking', client_secret: 'oauth-client-secret' }]),
  OAUTH_REDIRECT_URIS: 'https://app.example.com/signed-in',
};

async function read<T>(h: Harness, url: string): Promise<T> {
  const res = await h.request({ method: 'GET', url, token: await h.bearer(null, ['security:read']) });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json() as T;
}

describe('security posture and questionnaire follow the running configuration', () => {
  let defaults: Harness;
  let custom: Harness;
  beforeAll(async () => {
    [defaults, custom] = await Promise.all([createHarness('sqlite'), createHarness('sqlite', { env: changed })]);
  });
  afterAll(async () => {
    await Promise.all([defaults.close(), custom.close()]);
  });

  it('reports the defaults of a plain deployment', async () => {
    const p = await read<SecurityPosture>(defaults, '/v1/security/json');
    expect(p).toMatchObject({
      service: { name: 'booking-service', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      transport: { tls: 'disabled', minimum_tls_version: null },
      client_authentication: { token_endpoint_auth_methods: ['private_key_jwt'], assertion_signing_algs: ['ES256', 'ES384', 'ES512'], shared_secrets: false, key_rotation_overlap_days: 30 },
      access_tokens: { signing_alg: 'ES512', signer: autoEs512Choice.signer.description, lifetime_seconds: 900, refresh_tokens: false },
      dpop: { supported: true, signing_algs: ['ES256', 'ES384', 'ES512', 'RS256', 'EdDSA'], nonce_required: false },
      clock_skew_seconds: 60,
      rate_limits: 'not configured',
      audit: { retention_days: { data: 90, security: 90 }, purge_interval_minutes: 60 },
      request_limits: { body_limit_bytes: 102_400, max_page_size: 100 },
      network: { trusted_proxies: 0, cors: { enabled: false, origins: [] } },
      metrics: { protection: 'network allowlist', allowed_networks: 2 },
      data: { storage: 'sqlite' },
      features: { user_totp_2fa: true, oauth_login: false, gdpr_erasure: true, sbom: true, security_txt: true },
    });
    expect(p.authorization.capabilities).toBeGreaterThan(50);
    expect(Date.parse(p.service.generated_at)).not.toBeNaN();
  });

  it('changes with the configuration and never shows a secret', async () => {
    const res = await custom.request({ method: 'GET', url: '/v1/security/json', token: await custom.bearer(null, ['security:read']) });
    const p = res.json() as SecurityPosture;
    expect(p).toMatchObject({
      transport: { tls: 'terminated by proxy', public_url_https: true },
      client_authentication: { key_rotation_overlap_days: 7 },
      access_tokens: { lifetime_seconds: 300, jwks_uri: 'https://api.example.com/.well-known/jwks.json' },
      dpop: { nonce_required: true },
      clock_skew_seconds: 30,
      rate_limits: { store: 'memory (per instance)', groups: { token: { limit: 7, window_seconds: 60, keyed_by: 'source IP' }, reads: { keyed_by: 'client' } } },
      audit: { retention_days: { data: 30, security: 365 }, purge_interval_minutes: 0 },
      request_limits: { body_limit_bytes: 65_536 },
      network: { trusted_proxies: 2, cors: { enabled: true, origins: ['https://app.example.com'] } },
      metrics: { protection: 'bearer token or network allowlist' },
      vulnerability_disclosure: { security_txt: 'https://api.example.com/.well-known/security.txt', policy: 'https://example.com/disclosure' },
      features: { dpop_nonces: true, rate_limiting: true, cors: true, audit_purge_job: false, oauth_login: true },
    });
    expect(res.body).not.toContain(metricsSecret);
    expect(res.body).not.toContain('oauth-client-secret');
    expect(res.body).not.toContain(custom.config.dataDir);
  });

  it('answers about twenty questions, each derived from the posture', async () => {
    const [plain, tuned] = await Promise.all([read<QuestionnaireAnswer[]>(defaults, '/v1/security/questionnaire'), read<QuestionnaireAnswer[]>(custom, '/v1/security/questionnaire')]);
    expect(plain.length).toBeGreaterThanOrEqual(18);
    expect(new Set(plain.map((a) => a.id)).size).toBe(plain.length);
    for (const answer of plain) {
      expect(Object.keys(answer).sort()).toEqual(['answer', 'evidence', 'id', 'question']);
      for (const value of Object.values(answer)) expect(value).toMatch(/\S/);
      expect(answer.evidence).toMatch(/^GET \/v1\/security\/json #\//);
    }
    const answer = (list: QuestionnaireAnswer[], id: string) => list.find((a) => a.id === id)?.answer ?? `missing ${id}`;
    expect(answer(plain, 'token-lifetime')).toContain('900 s');
    expect(answer(plain, 'admin-mfa')).not.toContain('external OpenID provider');
    expect(answer(tuned, 'admin-mfa')).toContain('external OpenID provider need the same TOTP step-up');
    expect(answer(tuned, 'token-lifetime')).toContain('300 s');
    expect(answer(plain, 'encryption-in-transit')).toMatch(/^No\./);
    expect(answer(tuned, 'encryption-in-transit')).toMatch(/^Yes, at the edge/);
    expect(answer(plain, 'audit-retention')).toContain('security entries 90 days');
    expect(answer(tuned, 'audit-retention')).toContain('security entries 365 days');
    expect(answer(tuned, 'audit-retention')).toContain('purge job is disabled');
    expect(answer(plain, 'rate-limiting')).toBe('Not configured in this deployment.');
    expect(answer(tuned, 'rate-limiting')).toContain('token: 7 per 60 s by source IP');
    expect(answer(tuned, 'token-binding')).toContain('nonces are required');
    expect(answer(plain, 'admin-mfa')).toMatch(/^Yes. .*TOTP.*step-up/);
    expect(answer(plain, 'data-deletion')).toMatch(/^Yes, by depersonalisation: POST \/v1\/users\/\{id\}\/erase/);
    expect(answer(plain, 'backup')).toMatch(/^Not implemented/);
    expect(answer(plain, 'sbom')).toMatch(/^Yes\. CycloneDX/);
    expect(answer(tuned, 'vulnerability-disclosure')).toContain('https://example.com/disclosure');
    expect(answer(tuned, 'monitoring')).toContain('bearer token or network allowlist');
  });
});
