import type { UnitOfWork } from '../data/unit-of-work.js';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';

const tenants = getResource('tenants');

/**
 * Every reference in `values` must name a live record the caller can see, and the tenant
 * node the write acts in must still be live. The parent rows (the node included) are
 * share-locked, so a concurrent delete of a parent waits for this write and then finds the
 * new child; after a delete that won, the write is refused instead of leaving an orphan.
 */
export async function checkReferences(unit: UnitOfWork, resource: ResourceDef, values: Readonly<Record<string, unknown>>): Promise<void> {
  await checkActingNode(unit);
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (!field?.references || typeof value !== 'string') continue;
    const parent = getResource(field.references);
    const record = await unit.find(parent, value, { lock: 'share' });
    if (!record) errors.push({ field: name, message: `does not name an existing ${parent.name} record` });
    // An erased user stays as a depersonalised row; nothing new may be linked to it (docs/gdpr.md "Erasure").
    else if (typeof record.erased_at === 'string') errors.push({ field: name, message: `names an erased ${parent.name} record: nothing new may be linked to it` });
  }
  if (errors.length > 0) throw validationError(errors);
}

/**
 * The scope was resolved (and may be cached) before the transaction began; a node deleted
 * since then must not receive records. The root node `system` is never deleted.
 */
async function checkActingNode(unit: UnitOfWork): Promise<void> {
  const node = unit.principal.scope.nodeId;
  if (node === null) return;
  // The acting node itself is in reach by definition; checked without scope so the lookup
  // is one primary-key read.
  const live = await unit.asSystem().find(tenants, node, { lock: 'share' });
  if (!live) throw validationError([{ field: 'X-Tenant-Id', message: 'the tenant node this request acts in no longer exists' }]);
}
