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
export function sensitiveFields(resource: ResourceDef): readonly string[] {
  return resource.fieldNames.filter((name) => resource.fields[name]?.sensitive === true);
}
