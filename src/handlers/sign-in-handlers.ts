import type { OtpStartInput, OtpVerifyInput } from '../sign-in/otp-service.js';
import type { TotpCodeInput, TotpVerifyInput } from '../sign-in/totp-service.js';
import { pathId } from '../http/path-id.js';
import { checkedBody } from './checked-input.js';
import type { Handlers } from './handler.js';

/** End-user sign-in (`src/actions/sign-in-actions.ts`): one-time passwords, TOTP, and the second step of a sign-in. */
export const signInHandlers: Handlers = {
  'users.otp-start': async (input, services) => ({ status: 202, body: await services.signIn.otp.start(input.context, checkedBody<OtpStartInput>(input)) }),
  'users.otp-verify': async (input, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.signIn.otp.verify(input.context, checkedBody<OtpVerifyInput>(input)) }),
  'users.totp-verify': async (input, services) => ({
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: await services.signIn.totp.verify(input.context, checkedBody<TotpVerifyInput>(input)),
  }),
  'users.totp-enroll': async (input, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.signIn.totp.enroll(input.context) }),
  'users.totp-activate': async (input, services) => (await services.signIn.totp.activate(input.context, checkedBody<TotpCodeInput>(input)), { status: 204 }),
  'users.totp-step-up': async (input, services) => ({
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: await services.signIn.totp.stepUp(input.context, checkedBody<TotpCodeInput>(input)),
  }),
  'users.totp-disable': async (input, services) => (await services.signIn.totp.disable(input.context, checkedBody<TotpCodeInput>(input)), { status: 204 }),
  'users.reset-totp': async (input, services) => (await services.signIn.totp.reset(input.context, pathId(input.params.id ?? '', 'users')), { status: 204 }),
};
