import { validationError } from '../../http/errors.js';
import { getResource } from '../../registry/index.js';
import { addClientKey, isValidKid, listClientKeys, parsePublicKey } from '../client-keys.js';
import { checkClientGrant } from '../grant-ceiling.js';
import type { ResourceHooks } from '../resource-hooks.js';

/**
 * API clients: the caller may only grant capabilities it holds (that it changes or deletes
 * only a client whose capabilities it holds is checked for every write on a client by the
 * executor and the unit of work); `client_id` is the record id; the client's
 * level is its tenant node's; the first public key goes to the key store.
 */
export function apiClientHooks(options: { readonly overlapDays: number }): ResourceHooks {
  return {
    async beforeCreate(hook, draft) {
      const { public_key: pem, kid, ...values } = draft.values;
      checkClientGrant(hook.unit.principal, values.capabilities as string[]);
      if (typeof pem !== 'string') throw validationError([{ field: 'public_key', message: 'is required' }]);
      if (kid !== undefined && !isValidKid(kid)) throw validationError([{ field: 'kid', message: 'must be 1-200 printable ASCII characters without spaces' }]);
      let level = 'system';
      if (draft.owner !== null) {
        const tenant = await hook.unit.asSystem().find(getResource('tenants'), draft.owner);
        level = String(tenant?.level ?? 'tenant');
      }
      return { ...draft, values: { ...values, client_id: draft.id, level } };
    },
    async afterCreate(hook, record, input) {
      const key = await parsePublicKey(String(input.public_key), 'public_key');
      await addClientKey(hook.unit.trx, hook.unit.dialect, String(record._id), key, input.kid as string | undefined, hook.unit.now, options.overlapDays);
    },
    async beforeUpdate(hook, _merged, changes) {
      if (Array.isArray(changes.capabilities)) checkClientGrant(hook.unit.principal, changes.capabilities as string[]);
    },
    // The security pipeline caches clients (disabled, allowlist, capabilities).
    invalidates: 'client',
    async expand(db, _dialect, records) {
      const keys = await listClientKeys(
        db,
        records.map((r) => String(r._id)),
      );
      for (const record of records) record.keys = keys.get(String(record._id)) ?? [];
    },
  };
}
