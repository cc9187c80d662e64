import { describe, expect, it } from 'vitest';
import { erasureAction } from '../../../src/registry/erasure-rule.js';
import { defineResource } from '../../../src/registry/define-resource.js';
import { getResource } from '../../../src/registry/index.js';
import type { FieldDef } from '../../../src/registry/types.js';

const field = (def: Partial<FieldDef>): FieldDef => ({ type: 'string', description: 'x', gdpr: 'none', ...def });

describe('erasure rules', () => {
  it('default from the GDPR class: facts and links kept, personal data nulled where nullable, else redacted', () => {
    expect(erasureAction(field({ gdpr: 'none' }))).toBe('keep');
    expect(erasureAction(field({ gdpr: 'pseudonymous', type: 'reference' }))).toBe('keep');
    expect(erasureAction(field({ gdpr: 'personal', nullable: true }))).toBe('null');
    expect(erasureAction(field({ gdpr: 'personal', required: true }))).toBe('redact');
    expect(erasureAction(field({ gdpr: 'special', nullable: true }))).toBe('null');
    expect(erasureAction(field({ gdpr: 'personal', nullable: true, erasure: 'redact' }))).toBe('redact');
  });

  it('the registry uses them as declared', () => {
    const users = getResource('users');
    expect(erasureAction(users.fields.email as FieldDef)).toBe('redact');
    expect(erasureAction(users.fields.phone as FieldDef)).toBe('null');
    expect(erasureAction(users.fields.role as FieldDef)).toBe('keep');
  });

  it('a rule that cannot work stops the registry from loading, naming the field', () => {
    const spec = { name: 'products', table: 'products', description: 'x', tenancy: 'owned', operations: ['list'] } as const;
    expect(() => defineResource({ ...spec, fields: { age: { type: 'integer', description: 'x', gdpr: 'personal' } } })).toThrow(
      'resource products: field "age": redact needs a string field (is integer)',
    );
    expect(() => defineResource({ ...spec, fields: { email: { type: 'string', description: 'x', gdpr: 'personal', required: true, erasure: 'null' } } })).toThrow('null on a required field');
    expect(() => defineResource({ ...spec, fields: { name: { type: 'string', description: 'x', gdpr: 'personal', nullable: true, erasure: 'keep' } } })).toThrow('a personal field cannot be kept');
  });
});
