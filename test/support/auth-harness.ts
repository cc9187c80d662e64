import type { LightMyRequestResponse } from 'fastify';
import { vi } from 'vitest';
import type { DialectName } from '../../src/db/dialect.js';
import { SigningKeyStore } from '../../src/security/signing-keys.js';
import type { Clock } from '../../src/core/clock.js';
import { jwtBearerAssertionType } from '../../src/services/token-service.js';
import { createHarness } from './harness.js';
import type { Harness, TestClient } from './harness.js';
import { signAssertion } from './keys.js';

/** Options for {@link AuthHarness.assertionForm}. */
export interface AssertionOptions {
  readonly scope?: string;
  /** Use this assertion instead of signing one. */
  readonly assertion?: string;
  readonly kid?: string;
  readonly now?: number;
  readonly claims?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
}

/** Options for {@link AuthHarness.tokenRequest}. */
export interface TokenRequestOptions {
  readonly headers?: Record<string, string>;
  /** Socket address the request appears to come from; default 127.0.0.1. */
  readonly remoteAddress?: string;
}

/** The shared harness plus the app's signing keys and token-endpoint helpers. */
export interface AuthHarness extends Harness {
  /** The store the app signs and verifies access tokens with. */
  readonly keys: SigningKeyStore;
  /** The form fields of a client-credentials request with a fresh assertion. */
  assertionForm(client: TestClient, options?: AssertionOptions): Promise<Record<string, string>>;
  /** `POST /v1/auth/token`; a string form is sent verbatim. */
  tokenRequest(form: string | Record<string, string>, options?: TokenRequestOptions): Promise<LightMyRequestResponse>;
}

/**
 * {@link createHarness} with access to its signing-key store, caught as the harness opens
 * it, so tests can rotate keys or count verifications on the very instance the app uses.
 */
export async function createAuthHarness(dialect: DialectName, options: { env?: Record<string, string>; clock?: Clock } = {}): Promise<AuthHarness> {
  const open = vi.spyOn(SigningKeyStore, 'open');
  let harness: Harness;
  let keys: SigningKeyStore | undefined;
  try {
    harness = await createHarness(dialect, options);
    keys = await open.mock.results.at(-1)?.value;
  } finally {
    open.mockRestore();
  }
  if (!keys) throw new Error('the harness opened no signing-key store');
  const store = keys;
  return {
    ...harness,
    keys: store,
    async assertionForm(client, assertionOptions = {}) {
      const assertion =
        assertionOptions.assertion ??
        (await signAssertion(client.key, client.clientId, harness.config.tokenEndpoint, {
          kid: assertionOptions.kid ?? client.kid,
          ...(assertionOptions.now === undefined ? {} : { now: assertionOptions.now }),
          ...(assertionOptions.claims ? { claims: assertionOptions.claims } : {}),
          ...(assertionOptions.header ? { header: assertionOptions.header } : {}),
        }));
      return {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_assertion_type: jwtBearerAssertionType,
        client_assertion: assertion,
        ...(assertionOptions.scope === undefined ? {} : { scope: assertionOptions.scope }),
      };
    },
    tokenRequest(form, requestOptions = {}) {
      return harness.app.server.inject({
        method: 'POST',
        url: '/v1/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...requestOptions.headers },
        payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
        ...(requestOptions.remoteAddress ? { remoteAddress: requestOptions.remoteAddress } : {}),
      });
    },
  };
}
