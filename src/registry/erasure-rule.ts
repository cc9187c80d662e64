import type { ErasureAction, FieldDef } from './types.js';

/**
 * What erasure by depersonalisation does to a field: its declared `erasure`, else a default
 * from its GDPR class — `none` and `pseudonymous` fields are kept (facts and links, not
 * identities); `personal` and `special` fields are nulled where the field may be null and
 * redacted (a fixed marker) where it must keep a value.
 */
export function erasureAction(field: FieldDef): ErasureAction {
  if (field.erasure !== undefined) return field.erasure;
  if (field.gdpr === 'none' || field.gdpr === 'pseudonymous') return 'keep';
  return field.nullable === true ? 'null' : 'redact';
}

/** Why a field's erasure rule cannot work, or `undefined` (checked for every field at start-up). */
export function erasureProblem(field: FieldDef): string | undefined {
  const action = erasureAction(field);
  if (action === 'redact' && field.type !== 'string') return `redact needs a string field (is ${field.type}); declare erasure: 'null' or 'keep'`;
  if (action === 'null' && field.required === true && field.nullable !== true) return "null on a required field that is not nullable; declare erasure: 'redact'";
  if (action === 'keep' && (field.gdpr === 'personal' || field.gdpr === 'special')) return `a ${field.gdpr} field cannot be kept by erasure`;
  return undefined;
}
