import { lockedProduct } from '../booking/booking-hooks.js';
import type { Row } from '../data/record-codec.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { withRowLock } from '../db/row-lock.js';
import { notFound, validationError } from '../http/errors.js';
import type { AddressGuard } from '../lib/address-guard.js';
import { getResource } from '../registry/index.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { pathParentOf } from '../services/path-parent.js';
import type { ResourceHooks } from '../services/resource-hooks.js';

const bookings = getResource('bookings');
const products = getResource('products');

/** The path's product, in the caller's reach and locked (404 otherwise, as reading it would be). */
async function pathProduct(unit: UnitOfWork): Promise<Row> {
  const id = pathParentOf(unit.context);
  if (id === undefined) throw new Error('calendar imports are written through /v1/products/{id}/calendar-imports (withPathParent)');
  const product = await lockedProduct(unit, id);
  if (!product) throw notFound(products.name);
  return product;
}

/**
 * The hooks of `calendar-imports` (docs/calendars.md "Import"): a create belongs to the path's
 * product and its tenant, starts healthy with no blocks, and refuses an address the outgoing
 * guard would never connect to (the guard decides again at every fetch, on the resolved
 * address). Deleting an import cancels its blocks in the same transaction, locking as a
 * sync does: the import, its blocks, then the product.
 */
export function calendarImportHooks(settings: { readonly guard: AddressGuard; readonly allowHttp: boolean }): ResourceHooks {
  return {
    async ownerTenant(hook) {
      const product = await pathProduct(hook.unit);
      return (product.tenant_id as string | null | undefined) ?? null;
    },
    async beforeCreate(hook, draft) {
      const product = await pathProduct(hook.unit);
      const url = new URL(String(draft.values.url));
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.allowHttp))
        throw validationError([{ field: 'url', message: 'must be an https URL (http only with WEBHOOK_ALLOW_HTTP)' }]);
      const refused = settings.guard.literalRefusal(url);
      if (refused) throw validationError([{ field: 'url', message: 'names an address the service may not fetch from (WEBHOOK_ALLOWED_NETWORKS)' }]);
      return { ...draft, values: { ...draft.values, product_id: String(product._id), status: 'ok', events: 0, skipped: 0, conflicts: [] } };
    },
    async beforeDelete(hook, record) {
      const { unit } = hook;
      const blocks = (await withRowLock(
        unit.asSystem().scoped(bookings).selectAll().where('calendar_import_id', '=', String(record._id)).where('status', '=', 'active').orderBy('_id'),
        unit.dialect,
        'update',
      ).execute()) as Row[];
      if (blocks.length === 0) return;
      await unit.asSystem().find(products, String(record.product_id), { lock: 'update' });
      for (const block of blocks) await unit.update(bookings, block, String(block.etag), { status: 'cancelled' });
    },
  };
}

/** The import named by a path under its product: 404 unless it is a live import of that product in reach. */
export async function importOfProduct(unit: Pick<UnitOfWork, 'find'>, productId: string, importId: string): Promise<Row> {
  const record = await unit.find(calendarImports, importId);
  if (record?.product_id !== productId) throw notFound(calendarImports.name);
  return record;
}
