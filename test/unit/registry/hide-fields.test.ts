import { describe, expect, it } from 'vitest';
import { capabilityFreeReader, hideFields, hiddenFields } from '../../../src/derive/field-access.js';
import { getResource } from '../../../src/registry/index.js';

const users = getResource('users');
const auditLogs = getResource('audit-logs');
const reader = (...capabilities: string[]) => ({ capabilities: new Set(capabilities), unrestricted: false });

describe('hideFields: the one filter of sensitive fields for every projection of a record', () => {
  it('removes the sensitive fields the reader has no read capability for, field by field', () => {
    const record = { _id: 'u1', email: 'a@example.test', phone: '+4912345', first_name: 'Ada' };
    expect(hideFields(users, reader('users:read:email'), { ...record })).toEqual({ _id: 'u1', email: 'a@example.test', first_name: 'Ada' });
    expect(hideFields(users, capabilityFreeReader, { ...record })).toEqual({ _id: 'u1', first_name: 'Ada' });
    expect(hideFields(users, { capabilities: new Set<string>(), unrestricted: true }, { ...record })).toEqual(record);
    expect(hiddenFields(users, reader('users:read:phone'))).toEqual(['email', 'date_of_birth']);
  });

  it("applies the audited resource's rules to an audit entry's values, without touching the values it was given", () => {
    const oldValues = { email: 'old@example.test', last_name: null };
    const entry = { _id: 'a1', resource: 'users', old_values: oldValues, new_values: { email: 'new@example.test', last_name: 'King' } };
    const shown = hideFields(auditLogs, reader('audit-logs:read'), { ...entry });
    expect(shown.old_values).toEqual({ last_name: null });
    expect(shown.new_values).toEqual({ last_name: 'King' });
    expect(oldValues).toEqual({ email: 'old@example.test', last_name: null });
    expect(hideFields(auditLogs, reader('audit-logs:read', 'users:read:email'), { ...entry }).new_values).toEqual(entry.new_values);
  });

  it('leaves values of resources without sensitive fields, unknown resources and security events alone', () => {
    const product = { _id: 'a2', resource: 'products', new_values: { email: 'not-a-user-field', name: 'Loft' } };
    expect(hideFields(auditLogs, capabilityFreeReader, { ...product })).toEqual(product);
    const unknown = { _id: 'a3', resource: 'nothing', new_values: { email: 'x' } };
    expect(hideFields(auditLogs, capabilityFreeReader, { ...unknown })).toEqual(unknown);
    const event = { _id: 'a4', resource: 'users', new_values: null, old_values: null };
    expect(hideFields(auditLogs, capabilityFreeReader, { ...event })).toEqual(event);
  });
});
