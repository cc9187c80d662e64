import { describe, expect, it } from 'vitest';
import { erasureChanges, redactedValue } from '../../../src/derive/erasure.js';
import { userRelations } from '../../../src/gdpr/erase-user.js';
import { defineResource } from '../../../src/registry/define-resource.js';
import { resources } from '../../../src/registry/index.js';
import type { FieldDef, ResourceDef } from '../../../src/registry/types.js';

/** A resource the service does not have: a user's loyalty card with personal fields. */
function fakeResource(personalFields: Readonly<Record<string, FieldDef>>): ResourceDef {
  return defineResource({
    name: 'loyalty-cards' as ResourceDef['name'],
    table: 'loyalty_cards',
    description: 'x',
    tenancy: 'owned',
    operations: ['list', 'read', 'create'],
    fields: {
      holder_id: { type: 'reference', references: 'users', description: 'x', gdpr: 'pseudonymous' },
      points: { type: 'integer', description: 'x', gdpr: 'none' },
      ...personalFields,
    },
  });
}

describe('erasure and subject export cover every resource that references users, from the registry alone', () => {
  it('the shipped registry: bookings, orders, subscriptions and consents', () => {
    expect(userRelations().map((r) => `${r.resource.name}.${r.field}`)).toEqual(['bookings.user_id', 'orders.user_id', 'subscriptions.user_id', 'consents.user_id']);
  });

  it('a new resource with a users reference is covered, and exactly its personal and special fields are replaced', () => {
    const variants: Record<string, FieldDef>[] = [
      {},
      { nickname: { type: 'string', description: 'x', gdpr: 'personal', nullable: true } },
      { card_name: { type: 'string', description: 'x', gdpr: 'personal', required: true } },
      { health_note: { type: 'string', description: 'x', gdpr: 'special', nullable: true }, label: { type: 'string', description: 'x', gdpr: 'none' } },
    ];
    for (const fields of variants) {
      const fake = fakeResource(fields);
      const relations = userRelations([...resources, fake]);
      expect(relations.filter((r) => r.resource === fake).map((r) => r.field)).toEqual(['holder_id']);
      const record = { _id: 'r1', holder_id: 'u1', points: 7, nickname: 'Bo', card_name: 'Bo Jansen', health_note: 'diabetic', label: 'gold' };
      const changes = erasureChanges(fake, Object.fromEntries(Object.entries(record).filter(([k]) => k in fake.fields)));
      const expected = Object.fromEntries(
        Object.entries(fields)
          .filter(([, def]) => def.gdpr === 'personal' || def.gdpr === 'special')
          .map(([name, def]) => [name, def.nullable ? null : redactedValue]),
      );
      expect(changes).toEqual(expected);
      // Erasing an erased record changes nothing.
      expect(erasureChanges(fake, { ...record, ...changes })).toEqual({});
    }
  });
});
