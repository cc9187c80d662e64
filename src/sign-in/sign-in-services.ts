import type { OtpService } from './otp-service.js';
import type { TotpService } from './totp-service.js';

/** What the sign-in actions run on. */
export interface SignInServices {
  readonly otp: OtpService;
  readonly totp: TotpService;
}
