import { memoizeWeak } from '../lib/memoize-weak.js';
import { findResource } from '../registry/index.js';
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
export const sensitiveFields: (resource: ResourceDef) => readonly string[] = memoizeWeak((resource) => Object.freeze(resource.fieldNames.filter((name) => resource.fields[name]?.sensitive === true)));

/** Whoever a record is shown to: the capabilities that decide which sensitive fields it sees (a `Principal` is one). */
export interface FieldReader {
  readonly capabilities: ReadonlySet<string>;
  /** The CLI/job principal (`asSystem()`): sees every field. */
  readonly unrestricted: boolean;
}

/**
 * A reader without any capability: how a webhook receiver sees records (it authenticates
 * with the signing secret only, see docs/webhooks.md), so no sensitive field reaches it.
 */
export const capabilityFreeReader: FieldReader = Object.freeze({ capabilities: new Set<string>(), unrestricted: false });

/** Hidden fields per resource of each capability set (the same set object serves every request of a token). */
const hiddenByCapabilities = new WeakMap<ReadonlySet<string>, Map<ResourceDef, readonly string[]>>();

/** The sensitive fields of `resource` the reader may not see (no `<resource>:read:<field>`). */
export function hiddenFields(resource: ResourceDef, reader: FieldReader): readonly string[] {
  if (reader.unrestricted || sensitiveFields(resource).length === 0) return [];
  let byResource = hiddenByCapabilities.get(reader.capabilities);
  if (!byResource) hiddenByCapabilities.set(reader.capabilities, (byResource = new Map()));
  let hidden = byResource.get(resource);
  if (!hidden) {
    hidden = Object.freeze(sensitiveFields(resource).filter((field) => !reader.capabilities.has(readFieldCapability(resource, field))));
    byResource.set(resource, hidden);
  }
  return hidden;
}

/** Fields of each resource holding another resource's values (`FieldDef.valuesOf`), e.g. an audit entry's `old_values`/`new_values`. */
const valueFields = memoizeWeak((resource: ResourceDef) =>
  Object.freeze(
    resource.fieldNames.flatMap((name) => {
      const namedBy = resource.fields[name]?.valuesOf;
      return namedBy === undefined ? [] : [{ name, namedBy }];
    }),
  ),
);

/**
 * The one place that decides what of a record leaves the service: removes, in place, every
 * sensitive field the reader may not read — the record's own, and those inside values that
 * copy another resource's record (an audit entry's `old_values`/`new_values`: the fields of
 * the audited resource need the same capability as on that resource's reads). API reads,
 * lists and exports, the subject export, the audit trail and webhook payloads all go
 * through it. Returns the record.
 */
export function hideFields<T extends Record<string, unknown>>(resource: ResourceDef, reader: FieldReader, record: T): T {
  if (reader.unrestricted) return record;
  for (const field of hiddenFields(resource, reader)) delete record[field];
  for (const { name, namedBy } of valueFields(resource)) {
    const values = record[name];
    const source = typeof record[namedBy] === 'string' ? findResource(record[namedBy]) : undefined;
    if (!source || values === null || typeof values !== 'object') continue;
    const hidden = hiddenFields(source, reader).filter((field) => field in values);
    if (hidden.length === 0) continue;
    const copy: Record<string, unknown> = { ...(values as Record<string, unknown>) };
    for (const field of hidden) delete copy[field];
    (record as Record<string, unknown>)[name] = copy;
  }
  return record;
}
