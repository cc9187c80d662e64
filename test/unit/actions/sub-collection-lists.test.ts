import { describe, expect, it } from 'vitest';
import { findAction } from '../../../src/actions/index.js';
import type { Schema } from '../../../src/derive/openapi/types.js';
import { webhookDeliveries } from '../../../src/registry/sub-collections/webhook-deliveries.js';
import { webhookDeliveryAttempts } from '../../../src/registry/sub-collections/webhook-delivery-attempts.js';
import type { ResourceDef } from '../../../src/registry/types.js';

/** The item schema of the 200 answer an action documents. */
function itemSchema(key: string): Schema {
  const content = findAction(key)?.openapi.responses[200]?.content as Record<string, { schema: Schema }> | undefined;
  const page = content?.['application/json']?.schema;
  return (page?.properties as Record<string, Schema> | undefined)?.items?.items as Schema;
}

describe("a webhook's deliveries and attempts are documented from their registry declarations", () => {
  it.each<[string, ResourceDef]>([
    ['webhooks.deliveries', webhookDeliveries],
    ['webhooks.attempts', webhookDeliveryAttempts],
  ])('%s lists every field its registry declaration has, typed and described as declared there', (key, collection) => {
    const properties = itemSchema(key).properties as Record<string, Schema>;
    expect(Object.keys(properties)).toEqual(collection.fieldNames);
    for (const [name, field] of Object.entries(collection.fields)) {
      const types = [properties[name]?.type].flat();
      expect(types, name).toContain(field.type === 'timestamp' ? 'string' : field.type);
      expect(types.includes('null'), name).toBe(field.nullable === true);
      expect(properties[name]?.description, name).toBe(field.description);
      if (field.enum) expect(properties[name]?.enum, name).toEqual(field.enum);
    }
  });
});
