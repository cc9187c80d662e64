import { actions } from './index.js';
import { resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { readFieldCapability, sensitiveFields, writeFieldCapability } from '../derive/field-access.js';

export interface CapabilityInfo {
  readonly name: string;
  readonly resource: string;
  readonly description: string;
}

/** Capabilities of routes outside the resources (docs/authentication.md "Capabilities"). */
const serviceCapabilities: readonly CapabilityInfo[] = [
  { name: 'capabilities:list', resource: 'capabilities', description: 'List every capability (GET /v1/capabilities).' },
  { name: 'security:read', resource: 'security', description: 'Read the security posture, SBOM and questionnaire (/v1/security/*).' },
];

const operationText: Record<string, string> = {
  list: 'List and filter',
  read: 'Read one record of',
  create: 'Create',
  update: 'Update',
  delete: 'Delete',
  export: 'Export',
};

/**
 * A resource's sub-operations, sorted: those declared as actions, and those the registry
 * reserves (`subOperations`) ahead of their action.
 */
export function subOperationsOf(resource: ResourceDef): readonly string[] {
  // An action may reuse an existing capability (the deliveries list needs `webhooks:read`); only its own name adds one.
  const declared = actions
    .filter((a) => a.resource === resource.name && a.authentication === 'client' && a.capability === `${resource.name}:${a.name}` && !(resource.operations as readonly string[]).includes(a.name))
    .map((a) => a.name);
  return [...new Set([...resource.subOperations, ...declared])].sort();
}

function resourceCapabilities(resource: ResourceDef): CapabilityInfo[] {
  const out: CapabilityInfo[] = resource.operations.map((op) => ({
    name: `${resource.name}:${op}`,
    resource: resource.name,
    description: `${operationText[op] ?? op} ${resource.name}.`,
  }));
  for (const sub of subOperationsOf(resource)) {
    out.push({ name: `${resource.name}:${sub}`, resource: resource.name, description: `Run the ${sub} operation on ${resource.name}.` });
  }
  for (const field of sensitiveFields(resource)) {
    out.push({ name: readFieldCapability(resource, field), resource: resource.name, description: `See the sensitive field ${field}.` });
    out.push({ name: writeFieldCapability(resource, field), resource: resource.name, description: `Set the sensitive field ${field}.` });
  }
  return out;
}

/** Every capability the service knows, derived from the registry and the actions; sorted by name. */
export const capabilities: readonly CapabilityInfo[] = Object.freeze([...resources.flatMap(resourceCapabilities), ...serviceCapabilities].sort((a, b) => a.name.localeCompare(b.name)));

const names: ReadonlySet<string> = new Set(capabilities.map((c) => c.name));

/** Whether a string names a known capability. */
export function isCapability(name: string): boolean {
  return names.has(name);
}
