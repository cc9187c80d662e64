import { memoizeWeak } from '../lib/memoize-weak.js';
import type { ResourceDef } from '../registry/types.js';

/** Capability needed to see a sensitive field. */
export function readFieldCapability(resource: ResourceDef, field: string): string {
  return `${resource.name}:read:${field}`;
}

/** Capability needed to set a sensitive field. */
export function writeFieldCapability(resource: ResourceDef, field: string): string {
  return `${resource.name}:write:${field}`;
}

/** Names of the resource's sensitive fields. */
export const sensitiveFields: (resource: ResourceDef) => readonly string[] = memoizeWeak((resource) =>
  Object.freeze(resource.fieldNames.filter((name) => resource.fields[name]?.sensitive === true)),
);
