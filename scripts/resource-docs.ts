import { capabilities, subOperationsOf } from '../src/actions/capabilities.js';
import { erasureAction } from '../src/registry/erasure-rule.js';
import { childRelations, resources } from '../src/registry/index.js';
import type { FieldDef, ResourceDef } from '../src/registry/types.js';

function flags(field: FieldDef): string {
  const out: string[] = [];
  if (field.required) out.push('required');
  if (field.serverOwned) out.push('server-owned');
  if (field.immutable) out.push('create-only');
  if (field.writeOnly) out.push('write-only');
  if (field.nullable) out.push('nullable');
  if (field.filterable) out.push('filter');
  if (field.sortable) out.push('sort');
  if (field.sensitive) out.push('**sensitive**');
  return out.join(', ');
}

/** The GDPR class, and what erasure does to the field where it changes it. */
function gdpr(field: FieldDef): string {
  const action = erasureAction(field);
  return action === 'keep' ? field.gdpr : `${field.gdpr}; erasure: ${action}`;
}

function type(field: FieldDef): string {
  let text = field.type === 'reference' ? `reference → ${field.references}` : field.type;
  if (field.enum) text += `: ${field.enum.map((v) => `\`${v}\``).join(' \\| ')}`;
  if (field.format) text += ` (${field.format})`;
  return text;
}

function resourceSection(resource: ResourceDef): string {
  const lines = [`## \`${resource.name}\``, '', resource.description, ''];
  lines.push(`Operations: ${resource.operations.join(', ')}${subOperationsOf(resource).length ? `; sub-operations: ${subOperationsOf(resource).join(', ')}` : ''}.`);
  const children = childRelations(resource.name).map((c) => `${c.resource.name}.${c.field}`);
  if (resource.tenancy === 'node') children.push('every record stored in the node');
  if (children.length) lines.push(`Cascade deny: a delete is refused (409) while live children exist in ${children.join(', ')}.`);
  lines.push('', '| Field | Type | Default | Flags | GDPR | Description |', '|---|---|---|---|---|---|');
  for (const name of resource.fieldNames) {
    const field = resource.fields[name];
    if (!field) continue;
    const fallback = field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``;
    lines.push(`| \`${name}\` | ${type(field)} | ${fallback} | ${flags(field)} | ${gdpr(field)} | ${field.description.replaceAll('|', '\\|')} |`);
  }
  return lines.join('\n');
}

/** docs/resources.md, generated from the registry (`npm run docs`; a test keeps it current). */
export function resourceDocs(): string {
  const header = [
    '# Resources',
    '',
    '<!-- Generated from src/registry by `npm run docs`; do not edit by hand. -->',
    '',
    'Every resource lives under `/v1/{name}`. Flags: *required* on create; *server-owned* fields are set by the',
    'service and refused in bodies; *create-only* fields cannot be changed by PATCH; *write-only* fields are accepted',
    'on create and never returned; *filter*/*sort* fields are usable in `where`, query filters and `sort`;',
    '*sensitive* fields need `<resource>:read:<field>` to be returned and `<resource>:write:<field>` to be set.',
    "GDPR: the field's class, and what erasure by depersonalisation does to it (`null`, or `redact` to a fixed marker)",
    'where it changes it; fields without a rule derive one from their class (`src/registry/erasure-rule.ts`).',
    '',
  ];
  const capabilityList = [
    '## Capabilities',
    '',
    `${capabilities.length} capabilities, derived from the registry (also at \`GET /v1/capabilities\`):`,
    '',
    ...capabilities.map((c) => `- \`${c.name}\` — ${c.description}`),
  ];
  return `${[header.join('\n'), ...resources.map(resourceSection), capabilityList.join('\n')]
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
