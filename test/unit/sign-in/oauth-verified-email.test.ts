import { describe, expect, it } from 'vitest';
import { emailIsVerified } from '../../../src/sign-in/oauth-verified-email.js';

const google = 'https://accounts.google.com';
const entra = 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0';

describe('emailIsVerified', () => {
  it('accepts email_verified true (or "true") from any provider', () => {
    expect(emailIsVerified(google, { email: 'a@b.example', email_verified: true })).toBe(true);
    expect(emailIsVerified(google, { email: 'a@b.example', email_verified: 'true' })).toBe(true);
  });

  it('refuses a missing or false email_verified', () => {
    expect(emailIsVerified(google, { email: 'a@b.example' })).toBe(false);
    expect(emailIsVerified(google, { email: 'a@b.example', email_verified: false })).toBe(false);
    expect(emailIsVerified(google, { email: 'a@b.example', email_verified: 'yes' })).toBe(false);
  });

  it('takes xms_edov in place of email_verified from Microsoft Entra ID only', () => {
    expect(emailIsVerified(entra, { email: 'a@b.example', xms_edov: true })).toBe(true);
    expect(emailIsVerified(entra, { email: 'a@b.example', xms_edov: false })).toBe(false);
    expect(emailIsVerified(entra, { email: 'a@b.example' })).toBe(false);
    // An explicit email_verified: false wins.
    expect(emailIsVerified(entra, { email: 'a@b.example', email_verified: false, xms_edov: true })).toBe(false);
    // Other issuers cannot claim it, not even on a look-alike host.
    expect(emailIsVerified(google, { email: 'a@b.example', xms_edov: true })).toBe(false);
    expect(emailIsVerified('https://login.microsoftonline.com.evil.test/x/v2.0', { email: 'a@b.example', xms_edov: true })).toBe(false);
    expect(emailIsVerified('http://login.microsoftonline.com/x/v2.0', { email: 'a@b.example', xms_edov: true })).toBe(false);
  });
});
