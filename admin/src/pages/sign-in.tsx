import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Notice } from '../components/notice.js';
import { QrCode } from '../components/qr-code.js';
import { startSession } from '../session.js';

interface TokenAnswer {
  readonly access_token: string;
}
interface MfaAnswer {
  readonly mfa_required: true;
  readonly mfa_token: string;
}
interface Enrollment {
  readonly secret: string;
  readonly otpauth_uri: string;
  readonly recovery_codes: readonly string[];
}

type Step =
  | { readonly name: 'email' }
  | { readonly name: 'otp'; readonly challengeId: string; readonly note?: string }
  | { readonly name: 'totp'; readonly mfaToken: string }
  | { readonly name: 'enroll'; readonly token: string; readonly enrollment?: Enrollment }
  | { readonly name: 'recovery'; readonly token: string; readonly codes: readonly string[] };

/** Whether the token is an administrator's: the console is for role `admin` only. */
function isAdmin(token: string): boolean {
  const claims = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { role?: string; scope?: string };
  if (claims.role !== undefined) return claims.role === 'admin';
  return (claims.scope ?? '').split(' ').includes('api-clients:create');
}

/**
 * Sign-in: an e-mailed one-time password, then TOTP. On the first sign-in the administrator
 * enrols an authenticator (QR code), then signs in once more with both factors, so every
 * console session carries `totp` in `amr` (the API asks for it on administrative actions).
 */
export function SignIn() {
  const [step, setStep] = useState<Step>({ name: 'email' });
  const [tenant, setTenant] = useState(new URLSearchParams(location.search).get('tenant') ?? '');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError('');
    try {
      await action();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  const sendCode = (note?: string) =>
    run(async () => {
      const { body } = await api.call<{ challenge_id: string }>('POST', '/v1/auth/otp/start', { body: { tenant_id: tenant.trim(), channel: 'email', destination: email.trim() } });
      setCode('');
      setStep({ name: 'otp', challengeId: body.challenge_id, ...(note ? { note } : {}) });
    });

  const verifyOtp = (challengeId: string) =>
    run(async () => {
      const { body } = await api.call<TokenAnswer | MfaAnswer>('POST', '/v1/auth/otp/verify', { body: { challenge_id: challengeId, code: code.trim() } });
      setCode('');
      if ('mfa_required' in body) return setStep({ name: 'totp', mfaToken: body.mfa_token });
      if (!isAdmin(body.access_token)) throw new Error('This console is for administrators only.');
      // First sign-in: no authenticator yet. The one-factor token only serves to enrol one.
      api.setToken(body.access_token);
      const enrollment = (await api.call<Enrollment>('POST', '/v1/auth/totp/enroll')).body;
      api.setToken(undefined);
      setStep({ name: 'enroll', token: body.access_token, enrollment });
    });

  const verifyTotp = (mfaToken: string) =>
    run(async () => {
      const { body } = await api.call<TokenAnswer>('POST', '/v1/auth/totp/verify', { body: { mfa_token: mfaToken, code: code.trim() } });
      if (!isAdmin(body.access_token)) throw new Error('This console is for administrators only.');
      startSession(body.access_token);
    });

  const activate = (token: string, codes: readonly string[]) =>
    run(async () => {
      api.setToken(token);
      try {
        await api.call('POST', '/v1/auth/totp/activate', { body: { code: code.trim() } });
        setCode('');
        setStep({ name: 'recovery', token, codes });
      } finally {
        api.setToken(undefined);
      }
    });

  // Step-up (RFC 9470): the one-factor session proves the new second factor with the next code.
  const stepUp = (token: string) =>
    run(async () => {
      api.setToken(token);
      try {
        const { body } = await api.call<TokenAnswer>('POST', '/v1/auth/totp/step-up', { body: { code: code.trim() } });
        startSession(body.access_token);
      } catch (failure) {
        api.setToken(undefined);
        throw failure;
      }
    });

  return (
    <main class="sign-in" id="main">
      <h1>Administration</h1>
      <Notice kind="error">{error}</Notice>
      {step.name === 'email' && (
        <form onSubmit={(event) => (event.preventDefault(), void sendCode())}>
          <label for="tenant">Tenant ID</label>
          <input id="tenant" name="tenant" required autocomplete="organization" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} />
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" required autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Send code
          </button>
        </form>
      )}
      {step.name === 'otp' && (
        <form onSubmit={(event) => (event.preventDefault(), void verifyOtp(step.challengeId))}>
          <Notice kind="info">{step.note ?? `If ${email} belongs to an administrator of this tenant, a 6-digit code is on its way.`}</Notice>
          <label for="otp">One-time code</label>
          <input id="otp" name="otp" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Verify
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={() => setStep({ name: 'email' })}>
            Start over
          </button>
        </form>
      )}
      {step.name === 'totp' && (
        <form onSubmit={(event) => (event.preventDefault(), void verifyTotp(step.mfaToken))}>
          <label for="totp">Authenticator code</label>
          <input id="totp" name="totp" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {step.name === 'enroll' && step.enrollment && (
        <form onSubmit={(event) => (event.preventDefault(), void activate(step.token, step.enrollment?.recovery_codes ?? []))}>
          <h2>Set up your authenticator</h2>
          <p>Administrators sign in with a second factor. Scan the code with an authenticator app, or type the key.</p>
          <QrCode text={step.enrollment.otpauth_uri} label="QR code of your TOTP key" />
          <p>
            Key: <code data-testid="totp-secret">{step.enrollment.secret}</code>
          </p>
          <label for="totp-activate">Code from the app</label>
          <input id="totp-activate" name="totp" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Turn on
          </button>
        </form>
      )}
      {step.name === 'recovery' && (
        <form onSubmit={(event) => (event.preventDefault(), void stepUp(step.token))}>
          <h2>Authenticator on</h2>
          {step.codes.length > 0 && (
            <>
              <p>Keep these recovery codes somewhere safe. Each works once, and they are shown only now.</p>
              <ul class="codes">
                {step.codes.map((c) => (
                  <li key={c}>
                    <code>{c}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          <label for="totp-next">Next code from the app</label>
          <input id="totp-next" name="totp" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <p class="help">The code you just used is spent: wait for the app to show the next one.</p>
          <button type="submit" disabled={busy}>
            Continue
          </button>
        </form>
      )}
    </main>
  );
}
