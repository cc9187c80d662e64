import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { challenge, schemeOf } from '../../../src/http/challenge.js';

const withAuthorization = (authorization: string | undefined) => ({ headers: { authorization } }) as unknown as FastifyRequest;

describe('WWW-Authenticate challenges', () => {
  it('answers in the scheme the token came with, whatever its case', () => {
    expect(schemeOf(withAuthorization('DPoP eyJ…'))).toBe('DPoP');
    expect(schemeOf(withAuthorization('dpop eyJ…'))).toBe('DPoP');
    expect(schemeOf(withAuthorization('DPoP'))).toBe('DPoP');
    expect(schemeOf(withAuthorization('DPoPx eyJ…'))).toBe('Bearer');
    expect(schemeOf(withAuthorization('Bearer eyJ…'))).toBe('Bearer');
    expect(schemeOf(withAuthorization(undefined))).toBe('Bearer');
  });

  it('names the error and its parameters, and the DPoP algorithms for DPoP', () => {
    expect(challenge('Bearer', 'insufficient_scope', { scope: 'a:b c:d' })).toBe('Bearer realm="booking-api", error="insufficient_scope", scope="a:b c:d"');
    expect(challenge('DPoP', 'insufficient_scope', { scope: 'a:b' })).toBe('DPoP realm="booking-api", error="insufficient_scope", scope="a:b", algs="ES256 ES384 ES512 RS256 EdDSA"');
    expect(challenge('Bearer')).toBe('Bearer realm="booking-api"');
  });
});
