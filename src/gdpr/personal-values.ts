import type { ExpressionBuilder } from 'kysely';
import type { Tables } from '../db/dialect.js';
import { redactedValue } from '../derive/erasure.js';
import { erasureAction } from '../registry/erasure-rule.js';
import type { ResourceDef } from '../registry/types.js';

/** The stored fields erasure changes, and whether each is redacted (else nulled): the fields `erasureChanges` writes. */
export function personalColumns(resource: ResourceDef): { name: string; redact: boolean }[] {
  return resource.fieldNames.flatMap((name) => {
    const field = resource.fields[name];
    if (!field || field.computed || field.writeOnly || field.serverOwned) return [];
    const action = erasureAction(field);
    return action === 'keep' ? [] : [{ name, redact: action === 'redact' }];
  });
}

/**
 * "Row `alias` still holds a personal value": a field erasure would change is neither null
 * nor the redaction marker (what a retention policy's `anonymize` reaches).
 */
export function holdsPersonalValues(resource: ResourceDef, alias?: string) {
  const column = columnOf(alias);
  return (eb: ExpressionBuilder<Tables, string>) =>
    eb.or(personalColumns(resource).map(({ name, redact }) => (redact ? eb.and([eb(column(name), 'is not', null), eb(column(name), '!=', redactedValue)]) : eb(column(name), 'is not', null))));
}

/**
 * "Erasure would still change row `alias`": a field differs from what its rule writes (a
 * redacted field that is empty gets the marker too, as `erasureChanges` does). In SQL, so a
 * scan for what is left to erase reads no row that is done.
 */
export function notErased(resource: ResourceDef, alias?: string) {
  const column = columnOf(alias);
  return (eb: ExpressionBuilder<Tables, string>) =>
    eb.or(personalColumns(resource).map(({ name, redact }) => (redact ? eb.or([eb(column(name), 'is', null), eb(column(name), '!=', redactedValue)]) : eb(column(name), 'is not', null))));
}

function columnOf(alias: string | undefined): (name: string) => string {
  return (name) => (alias === undefined ? name : `${alias}.${name}`);
}
