import { isSealed, openSealed } from '../../data/subject-keys.js';
import type { ResourceHooks } from '../resource-hooks.js';

/**
 * Audit entries are shown with their sealed personal values opened (one key lookup per
 * page or export batch); values whose subject was erased read as `[erased]`.
 */
export const auditValueHooks: ResourceHooks = {
  async expand(db, _dialect, records) {
    const sealed: string[] = [];
    for (const record of records) {
      for (const column of ['old_values', 'new_values'] as const) {
        const values = record[column];
        if (values && typeof values === 'object') for (const value of Object.values(values)) if (isSealed(value)) sealed.push(value);
      }
    }
    if (sealed.length === 0) return;
    const opened = await openSealed(db, sealed);
    for (const record of records) {
      for (const column of ['old_values', 'new_values'] as const) {
        const values = record[column];
        if (!values || typeof values !== 'object') continue;
        const copy: Record<string, unknown> = { ...(values as Record<string, unknown>) };
        for (const [key, value] of Object.entries(copy)) if (isSealed(value)) copy[key] = opened.get(value);
        record[column] = copy;
      }
    }
  },
};
