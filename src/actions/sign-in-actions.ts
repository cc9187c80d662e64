import { problems } from '../derive/openapi/problems.js';
import { ref } from '../derive/openapi/types.js';
import type { Operation, Schema } from '../derive/openapi/types.js';
import type { ActionDef, Authentication } from './action.js';

export const json = (properties: Record<string, unknown>, required: readonly string[]) => ({ 'application/json': { schema: { type: 'object', properties, required, additionalProperties: false } } });
/** A closed object schema: the body of a step, declared once, enforced by the executor and printed in OpenAPI. */
export const closedObject = (properties: Record<string, Schema>, required: readonly string[]): Schema => ({ type: 'object', properties, required: [...required], additionalProperties: false });
/** The JSON content of a request body, with its schema object as declared. */
export const jsonBody = (schema: Schema) => ({ 'application/json': { schema } });
/** The members of a user-token answer. */
export const token = { access_token: { type: 'string' }, token_type: { type: 'string', enum: ['Bearer'] }, expires_in: { type: 'integer' }, scope: { type: 'string' } };

function operation(operationId: string, summary: string, description: string, body: Record<string, unknown> | undefined, responses: Operation['responses']): Operation {
  return { operationId, summary, description, tags: ['auth'], ...(body ? { requestBody: { required: true, content: body } } : {}), responses };
}

/** A sign-in step: public (its proof is in the body) or for any signed-in user; limited per source IP like the token endpoint. */
function step(name: string, path: string, authentication: Authentication, body: Schema | undefined, openapi: Operation): ActionDef {
  return {
    resource: 'users',
    name,
    method: 'POST',
    path,
    capability: `users:${name}`,
    rateLimitGroup: 'token',
    authentication,
    stepUp: false,
    openapi,
    schemas: { ...(body ? { body } : {}) },
  };
}

/**
 * A code as the user typed it. Its shape is not checked here: a code of the wrong shape is a
 * wrong code (400 `invalid_grant`, one attempt used: docs/end-users.md "One-time passwords"
 * and "TOTP second factor"), not malformed input.
 */
const typedCode = { type: 'string', minLength: 1, maxLength: 64 };

/** `POST /v1/auth/otp/start`. The destination's form depends on the channel: checked by the service. */
const otpStartBody = closedObject({ tenant_id: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' }, channel: { type: 'string', enum: ['email', 'sms'] }, destination: { type: 'string' } }, [
  'tenant_id',
  'channel',
  'destination',
]);
/** `POST /v1/auth/otp/verify`. */
const otpVerifyBody = closedObject({ challenge_id: { type: 'string', maxLength: 100 }, code: typedCode }, ['challenge_id', 'code']);
/** `POST /v1/auth/totp/verify`: a TOTP code or a recovery code. */
const totpVerifyBody = closedObject({ mfa_token: { type: 'string', maxLength: 100 }, code: typedCode }, ['mfa_token', 'code']);
/** `activate`, `step-up` and `disable`: a current TOTP code. */
const totpCodeBody = closedObject({ code: typedCode }, ['code']);
/** The TOTP lock-out, as each operation that checks a TOTP code describes it. */
const lockOut =
  'After 5 refused TOTP codes in a row (over activate, verify, step-up and disable) TOTP is locked for 1 min, each further refusal doubling it up to 24 h: a TOTP code then gets 429 `rate_limited` with `Retry-After`, unchecked.';

/** End-user sign-in (docs/end-users.md): one-time passwords, TOTP, and the second step of a sign-in. */
export const signInActions: readonly ActionDef[] = [
  step(
    'otp-start',
    '/v1/auth/otp/start',
    'public',
    otpStartBody,
    operation(
      'otp_start',
      'Send a one-time sign-in code',
      'The same answer whether or not the destination belongs to a user. 429 for a new code within 60 s, or past the daily cap (`daily_limit_reached`).',
      jsonBody(otpStartBody),
      {
        202: {
          description: 'A code is on its way if the destination belongs to an active user.',
          content: json({ challenge_id: { type: 'string' }, expires_in: { type: 'integer' } }, ['challenge_id', 'expires_in']),
        },
        ...problems('400'),
      },
    ),
  ),
  step(
    'otp-verify',
    '/v1/auth/otp/verify',
    'public',
    otpVerifyBody,
    operation(
      'otp_verify',
      'Exchange a one-time code for a token',
      'Users with TOTP get `{ mfa_required, mfa_token }` for `/v1/auth/totp/verify` instead. A wrong, expired, used or unknown code is a 400 `invalid_grant` (after 5 wrong codes the challenge is dead).',
      jsonBody(otpVerifyBody),
      {
        200: {
          description: 'A user token (`amr: ["otp"]`), or the second-factor step.',
          content: {
            'application/json': {
              schema: {
                // Each alternative names its members: without `required`, a token would also match the second.
                oneOf: [
                  { type: 'object', properties: token, required: ['access_token', 'token_type', 'expires_in'] },
                  { type: 'object', properties: { mfa_required: { const: true }, mfa_token: { type: 'string' } }, required: ['mfa_required', 'mfa_token'] },
                ],
              },
            },
          },
        },
        ...problems('400'),
      },
    ),
  ),
  step(
    'totp-verify',
    '/v1/auth/totp/verify',
    'public',
    totpVerifyBody,
    operation(
      'totp_verify',
      'Second factor: a TOTP or recovery code',
      `With the \`mfa_token\` of \`/v1/auth/otp/verify\`. An accepted code is refused if used again. ${lockOut} A recovery code still works then, and lifts the lock.`,
      jsonBody(totpVerifyBody),
      {
        200: { description: 'A user token with `amr: ["otp","totp"]`.', content: { 'application/json': { schema: { type: 'object', properties: token } } } },
        ...problems('400'),
      },
    ),
  ),
  step(
    'totp-enroll',
    '/v1/auth/totp/enroll',
    'user',
    undefined,
    operation('totp_enroll', 'Start TOTP enrolment', 'A new secret (base32), its `otpauth://` URI and 10 single-use recovery codes, shown only here. TOTP is on once activated.', undefined, {
      200: {
        description: 'The secret.',
        content: json({ secret: { type: 'string' }, otpauth_uri: { type: 'string' }, recovery_codes: { type: 'array', items: { type: 'string' } } }, ['secret', 'otpauth_uri', 'recovery_codes']),
      },
      ...problems('400', '409'),
    }),
  ),
  step(
    'totp-activate',
    '/v1/auth/totp/activate',
    'user',
    totpCodeBody,
    operation('totp_activate', 'Turn TOTP on with a first code', `From now on sign-in asks for a TOTP code after the one-time password. ${lockOut}`, jsonBody(totpCodeBody), {
      204: { description: 'TOTP is on.' },
      ...problems('400', '409'),
    }),
  ),
  step(
    'totp-step-up',
    '/v1/auth/totp/step-up',
    'user',
    totpCodeBody,
    operation(
      'totp_step_up',
      'Step-up: add the second factor to a session',
      `RFC 9470: a user signed in with one factor sends a current TOTP code and gets a token with \`amr: ["otp","totp"]\`, as administrative actions require. ${lockOut}`,
      jsonBody(totpCodeBody),
      { 200: { description: 'A user token with `totp` in `amr`.', content: { 'application/json': { schema: { type: 'object', properties: token } } } }, ...problems('400', '409') },
    ),
  ),
  step(
    'totp-disable',
    '/v1/auth/totp/disable',
    'user',
    totpCodeBody,
    operation('totp_disable', 'Turn TOTP off', `Needs a current TOTP code. ${lockOut}`, jsonBody(totpCodeBody), { 204: { description: 'TOTP is off.' }, ...problems('400', '409') }),
  ),
];

/**
 * `POST /v1/users/{id}/totp/reset`: an administrator's way back in for a user who lost both
 * the authenticator and the recovery codes. Control of the user (the grant ceiling) is
 * checked like every write on a user by id.
 */
export const resetTotpAction: ActionDef = {
  resource: 'users',
  name: 'reset-totp',
  method: 'POST',
  path: '/v1/users/:id/totp/reset',
  capability: 'users:reset-totp',
  rateLimitGroup: 'writes',
  authentication: 'client',
  stepUp: true,
  openapi: {
    operationId: 'reset_user_totp',
    summary: "Reset a user's TOTP",
    tags: ['users'],
    description:
      "Removes the user's TOTP enrolment (active or pending), its recovery codes and its lock-out, and sets `totp_enabled` to false, audited as `totp-reset` with a `totp_reset` security event. The user then signs in with a one-time password alone and can enrol again. No body. With nothing to reset, nothing changes and the answer is the same. The caller must hold every capability of the user's role.",
    parameters: [ref('parameters', 'id')],
    responses: { 204: { description: 'The user has no TOTP.' }, ...problems('400', '404') },
  },
  schemas: {},
};
