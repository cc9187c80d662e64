import type { OAuthLogin } from './oauth-login.js';
import type { OtpService } from './otp-service.js';
import type { TotpService } from './totp-service.js';

/** What the sign-in actions run on. */
export interface SignInServices {
  readonly otp: OtpService;
  readonly totp: TotpService;
  /** OAuth2 login with the providers of `OAUTH_PROVIDERS` (none configured: every provider is unknown). */
  readonly oauth: OAuthLogin;
}
