import { describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../../src/actions/index.js';
import { asSystem } from '../../../src/core/principal.js';
import { controlledTarget } from '../../../src/handlers/controlled-target.js';
import { checkClientControl, checkUserControl } from '../../../src/services/grant-ceiling.js';

const idOf = (path: string): Record<string, string> => (path.includes(':id') ? { id: 'rec-1' } : {});

describe('controlled targets: every write by id on a user or an API client is bounded by the grant ceiling', () => {
  it('derives a target for exactly the writes on /{id} of users and api-clients, whatever their name', () => {
    const controlled = actions.filter((action) => controlledTarget(action, idOf(action.path)) !== undefined).map(actionKey);
    expect(controlled.sort()).toEqual(['api-clients.delete', 'api-clients.rotate-key', 'api-clients.update', 'users.delete', 'users.erase', 'users.reset-totp', 'users.update']);
  });

  it('names the record and the check of its resource', () => {
    const erase = actions.find((a) => actionKey(a) === 'users.erase');
    const rotate = actions.find((a) => actionKey(a) === 'api-clients.rotate-key');
    if (!erase || !rotate) throw new Error('missing action');
    expect(controlledTarget(erase, { id: 'u-1' })).toEqual({ resource: 'users', id: 'u-1', check: checkUserControl });
    expect(controlledTarget(rotate, { id: 'c-1' })).toEqual({ resource: 'api-clients', id: 'c-1', check: checkClientControl });
  });

  it('answers 404 for an id that cannot name a record, before any query', () => {
    const update = actions.find((a) => actionKey(a) === 'users.update');
    if (!update) throw new Error('missing action');
    expect(() => controlledTarget(update, { id: 'a\u0000b' })).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('lets a system caller manage any user', () => {
    expect(() => checkUserControl(asSystem(), { role: 'admin' })).not.toThrow();
  });
});
