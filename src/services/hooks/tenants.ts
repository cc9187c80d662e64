import { validationError } from '../../http/errors.js';
import { getResource } from '../../registry/index.js';
import { levelRank } from '../../core/principal.js';
import type { Level } from '../../core/principal.js';
import type { ResourceHooks } from '../resource-hooks.js';

/**
 * Tenant nodes: a new node hangs below the named parent (default: the caller's node), sits
 * at a strictly lower level, and stores its materialised path for subtree scoping.
 */
export const tenantHooks: ResourceHooks = {
  // Scopes are cached by node id; a deleted node must stop resolving everywhere.
  invalidates: 'tenant',

  async ownerTenant(hook, values) {
    const parent = values.parent_id;
    const scope = hook.unit.principal.scope;
    // An explicit null asks for a node directly below system; only the system scope may
    // place one there, and a request is never silently re-parented to the caller's node.
    if (parent === null && scope.nodeId !== null) {
      throw validationError([{ field: 'parent_id', message: 'only system-level callers create nodes directly below system' }]);
    }
    return typeof parent === 'string' ? parent : scope.nodeId;
  },

  async beforeCreate(hook, draft) {
    let parentLevel: Level = 'system';
    let parentPath = '/';
    if (draft.owner !== null) {
      // Reach was checked by checkReferences (parent_id) or is the caller's own node.
      const parent = await hook.unit.asSystem().find(getResource('tenants'), draft.owner);
      if (!parent) throw validationError([{ field: 'parent_id', message: 'does not name an existing tenant node' }]);
      parentLevel = parent.level as Level;
      parentPath = String(parent.path);
    }
    const level = draft.values.level as Level;
    if (levelRank[level] <= levelRank[parentLevel]) {
      throw validationError([{ field: 'level', message: `a ${level} node cannot sit below a ${parentLevel} node` }]);
    }
    return { ...draft, values: { ...draft.values, parent_id: draft.owner }, columns: { path: `${parentPath}${draft.id}/` } };
  },
};
