import type { OAuthStartQuery, OAuthTokenInput } from '../sign-in/oauth-login.js';
import { checkedBody, checkedQuery } from './checked-input.js';
import type { Handlers } from './handler.js';

const noStore = { 'cache-control': 'no-store' };

/** The steps of the OAuth2 login (`src/actions/oauth-actions.ts`, docs/oauth-login.md). */
export const oauthHandlers: Handlers = {
  'users.oauth-start': async (input, services) => ({
    status: 302,
    headers: { ...noStore, location: await services.signIn.oauth.start(input.params.provider ?? '', checkedQuery<OAuthStartQuery>(input), input.context) },
  }),
  'users.oauth-callback': async (input, services) => ({
    status: 302,
    headers: { ...noStore, location: await services.signIn.oauth.callback(input.params.provider ?? '', input.query, input.url, input.context) },
  }),
  'users.oauth-token': async (input, services) => ({ status: 200, headers: noStore, body: await services.signIn.oauth.exchange(checkedBody<OAuthTokenInput>(input), input.context) }),
};
