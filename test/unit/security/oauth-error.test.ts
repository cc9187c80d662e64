import { describe, expect, it } from 'vitest';
import { OAuthError, TokenError, type OAuthErrorCode } from '../../../src/security/oauth-error.js';

describe('OAuthError', () => {
  it.each([
    ['invalid_request', 400],
    ['invalid_client', 401],
    ['invalid_grant', 400],
    ['unsupported_grant_type', 400],
    ['invalid_scope', 400],
    ['invalid_dpop_proof', 400],
    ['use_dpop_nonce', 400],
    ['temporarily_unavailable', 503],
    ['server_error', 500],
  ] as const)('%s answers %i', (code: OAuthErrorCode, status) => {
    expect(new OAuthError(code, 'why').status).toBe(status);
  });

  it('shows a generic description and keeps the precise reason private', () => {
    const a = new OAuthError('invalid_client', 'unknown client key (kid)');
    const b = new OAuthError('invalid_client', 'signature verification failed');
    expect(a.description).toBe(b.description);
    expect(a.toBody()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(JSON.stringify(a.toBody())).not.toContain('kid');
    expect(a.privateReason).toBe('unknown client key (kid)');
    expect(a).toBeInstanceOf(Error);
    expect(a.name).toBe('OAuthError');
  });

  it('keeps a cause', () => {
    const cause = new Error('inner');
    expect(new OAuthError('server_error', 'db down', { cause }).cause).toBe(cause);
  });
});

describe('TokenError', () => {
  it('carries a code and a private reason', () => {
    const error = new TokenError('use_dpop_nonce', 'nonce missing');
    expect(error.code).toBe('use_dpop_nonce');
    expect(error.privateReason).toBe('nonce missing');
    expect(error.name).toBe('TokenError');
  });
});
