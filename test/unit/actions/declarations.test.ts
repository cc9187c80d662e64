import { describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../../src/actions/index.js';
import type { ActionServices } from '../../../src/handlers/index.js';
import { capabilities, isCapability } from '../../../src/actions/capabilities.js';
import { groupOf } from '../../../src/edge/rate-limit.js';
import { resources } from '../../../src/registry/index.js';
import { actionRoute } from '../../../src/routes/actions.js';

const services = {} as ActionServices;

describe('declared actions', () => {
  it('cover every collection operation of every resource, and the sub-operations', () => {
    const keys = actions.map(actionKey);
    for (const resource of resources) for (const op of resource.operations) expect(keys).toContain(`${resource.name}.${op}`);
    expect(keys).toContain('api-clients.rotate-key');
    expect(keys).toEqual(expect.arrayContaining(['users.otp-start', 'users.otp-verify', 'users.totp-verify', 'users.totp-enroll', 'users.totp-activate', 'users.totp-disable']));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('each route carries the capability, rate-limit group and step-up flag its action declares', () => {
    for (const action of actions) {
      const route = actionRoute(action, services);
      expect(route.method).toBe(action.method);
      expect(route.url).toBe(action.path);
      expect(route.config).toMatchObject({ rateLimitGroup: action.rateLimitGroup, stepUp: action.stepUp });
      expect(groupOf(route), actionKey(action)).toBe(action.rateLimitGroup);
      if (action.authentication === 'client') {
        expect(route.config).toMatchObject({ capability: action.capability });
        expect(isCapability(action.capability), action.capability).toBe(true);
      } else {
        expect(route.config).toMatchObject(action.authentication === 'public' ? { public: true } : { anyUser: true });
        expect(route.config?.capability).toBeUndefined();
      }
    }
  });

  it('exports are the exports group because they say so, not because of their URL', () => {
    expect(actions.filter((a) => a.name === 'export').every((a) => a.rateLimitGroup === 'exports')).toBe(true);
    expect(groupOf({ method: 'GET', url: '/v1/things/export', config: { capability: 'products:list' } })).toBe('reads');
    expect(groupOf({ method: 'POST', url: '/v1/auth/token', config: { public: true } })).toBe('public');
    expect(groupOf({ method: 'POST', url: '/anywhere', config: { public: true, rateLimitGroup: 'token' } })).toBe('token');
  });

  it('administrative writes declare step-up; reads and business data do not', () => {
    const stepUp = (key: string) => actions.find((a) => actionKey(a) === key)?.stepUp;
    for (const key of [
      'api-clients.create',
      'api-clients.update',
      'api-clients.delete',
      'api-clients.rotate-key',
      'tenants.create',
      'webhooks.update',
      'legal-holds.create',
      'retention-policies.delete',
      'users.update',
    ])
      expect(stepUp(key), key).toBe(true);
    for (const key of ['api-clients.list', 'bookings.create', 'products.update', 'audit-logs.export', 'users.otp-start']) expect(stepUp(key), key).toBe(false);
  });

  it('a sub-operation declared as an action is a capability without a registry entry', () => {
    expect(resources.find((r) => r.name === 'api-clients')?.subOperations).toEqual([]);
    expect(capabilities.map((c) => c.name)).toContain('api-clients:rotate-key');
  });
});
