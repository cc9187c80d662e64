import { blockedOperators } from '../../query/blocked-operators.js';
import { fieldOperators, isFieldOperator, operatorAllowed } from '../../query/field-operators.js';
import { filterableField } from '../../query/filterable-field.js';
import { MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_STRING_LENGTH, MAX_IN_ITEMS, MAX_REGEX_LENGTH, MAX_SORT_KEYS, MAX_WHERE_LENGTH } from '../../query/limits.js';
import type { FieldDef, FieldOperator, ResourceDef } from '../../registry/types.js';
import { ref } from './types.js';
import type { OpenApiObject, Schema } from './types.js';

const operatorText: Readonly<Record<FieldOperator, string>> = {
  $eq: 'equals',
  $ne: 'differs from (or is absent)',
  $gt: 'is greater than',
  $gte: 'is greater than or equal to',
  $lt: 'is less than',
  $lte: 'is less than or equal to',
  $in: 'is one of (comma-separated)',
  $nin: 'is none of (comma-separated; or is absent)',
  $exists: 'has a value (`true`) or is absent (`false`)',
  $regex: `matches the RE2 regular expression (at most ${MAX_REGEX_LENGTH} characters)`,
};

/** The shared `where` parameter. */
export const whereParameter: OpenApiObject = {
  name: 'where',
  in: 'query',
  description: [
    'Mongo-style JSON filter, URL-encoded. Field conditions `{"city": "Berlin"}` (equality; `null` means absent) or',
    '`{"amount": {"$gt": 10, "$lte": 99}}`; logical `$and`, `$or` (non-empty arrays) and `$not`.',
    `Field operators: ${[...fieldOperators].map((op) => `\`${op}\``).join(', ')} (with \`$options: "i"\` for \`$regex\`),`,
    'each allowed by field type as the `<field>__<op>` parameters of this operation show.',
    `Refused (400): ${[...blockedOperators].map((op) => `\`${op}\``).join(', ')} and every other \`$\` name.`,
    `Limits: depth ${MAX_FILTER_DEPTH}, ${MAX_FILTER_CONDITIONS} conditions, ${MAX_WHERE_LENGTH} characters, ${MAX_IN_ITEMS} list items.`,
    'Combined with the query-parameter filters by AND.',
  ].join(' '),
  content: { 'application/json': { schema: { type: 'object' } } },
};

/** The schema of a filter value in a query string, by field type. */
function scalar(def: FieldDef): Schema {
  switch (def.type) {
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: def.type };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    default:
      return { type: 'string', maxLength: MAX_FILTER_STRING_LENGTH };
  }
}

function filterParameter(field: string, def: FieldDef, op: FieldOperator): OpenApiObject {
  const name = op === '$eq' ? field : `${field}__${op.slice(1)}`;
  const base = { name, in: 'query', required: false, description: `\`${field}\` ${operatorText[op]}.` };
  switch (op) {
    case '$in':
    case '$nin':
      return { ...base, style: 'form', explode: false, schema: { type: 'array', items: scalar(def), minItems: 1, maxItems: MAX_IN_ITEMS } };
    case '$exists':
      return { ...base, schema: { type: 'boolean' } };
    case '$regex':
      return { ...base, schema: { type: 'string', maxLength: MAX_REGEX_LENGTH } };
    default:
      return { ...base, schema: scalar(def) };
  }
}

/**
 * One query parameter per filterable field and allowed operator: `<field>` for equality,
 * `<field>__<op>` for the others, as `query/parse-query-filters.ts` reads them.
 */
export function filterParameters(resource: ResourceDef): OpenApiObject[] {
  const out: OpenApiObject[] = [];
  for (const field of resource.fieldNames) {
    const def = filterableField(resource, field);
    if (!def) continue;
    for (const op of fieldOperators) {
      if (isFieldOperator(op) && operatorAllowed(def.type, op)) out.push(filterParameter(field, def, op));
    }
  }
  return out;
}

/** Fields `sort` accepts (see `query/parse-sort.ts`): sortable, and neither sensitive, computed nor write-only. */
function sortableFields(resource: ResourceDef): string[] {
  return resource.fieldNames.filter((name) => {
    const def = resource.fields[name];
    return def?.sortable === true && !def.sensitive && !def.computed && !def.writeOnly;
  });
}

/** `sort` and `fields`, whose values are the resource's field names. */
function shapeParameters(resource: ResourceDef): OpenApiObject[] {
  const sortable = sortableFields(resource);
  const readable = resource.fieldNames.filter((name) => resource.fields[name]?.writeOnly !== true);
  return [
    {
      name: 'sort',
      in: 'query',
      description: 'Comma-separated sort keys, `-` prefix for descending; default `-created_at`. `_id` is the final tie-breaker.',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: sortable.flatMap((f) => [f, `-${f}`]) }, minItems: 1, maxItems: MAX_SORT_KEYS },
    },
    {
      name: 'fields',
      in: 'query',
      description: 'Comma-separated field names to return; `_id` is always returned.',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: readable }, minItems: 1 },
    },
  ];
}

/** Parameters of a list: `where`, paging, `sort`, `fields` and the field filters. */
export function listParameters(resource: ResourceDef): OpenApiObject[] {
  return [ref('parameters', 'where'), ref('parameters', 'page'), ref('parameters', 'per_page'), ...shapeParameters(resource), ...filterParameters(resource)];
}

/** Parameters of an export: a list's, without paging, plus `format`. */
export function exportParameters(resource: ResourceDef): OpenApiObject[] {
  const format = { name: 'format', in: 'query', description: 'NDJSON (default) or CSV.', schema: { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson' } };
  return [ref('parameters', 'where'), ...shapeParameters(resource), format, ...filterParameters(resource)];
}
