import { pathId } from '../http/path-id.js';
import type { AddKeyInput } from '../services/api-client-admin.js';
import type { Handlers } from './handler.js';

/** API-client operations beyond CRUD (`src/actions/api-client-actions.ts`). */
export const apiClientHandlers: Handlers = {
  /** Add a public key; earlier keys stay valid for the overlap. */
  'api-clients.rotate-key': async (input, { apiClients }) => {
    const result = await apiClients.addKey(input.context, pathId(input.params.id ?? '', 'api-clients'), input.body as AddKeyInput);
    return { status: 201, body: result };
  },
};
