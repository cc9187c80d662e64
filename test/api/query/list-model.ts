/**
 * A brute-force model of the list query language as docs/api.md states it, written without
 * the service's parser or compiler: it evaluates a `where` object and query-parameter
 * filters over records in memory, sorts, projects and pages them.
 */
import type { FieldType } from '../../../src/registry/types.js';

/** A record as the API shows it. */
export type Doc = Readonly<Record<string, unknown>> & { readonly _id: string };

/** Field name → type, for the fields a list may filter on. */
export type FieldTypes = Readonly<Record<string, FieldType>>;

/** One list request: its query parameters, as a client would send them. */
export interface ListRequest {
  readonly where?: unknown;
  readonly params: Readonly<Record<string, string>>;
  readonly sort?: readonly { readonly field: string; readonly descending: boolean }[];
  readonly fields?: readonly string[];
  readonly page: number;
  readonly perPage: number;
}

/** The answer the model expects. */
export interface ListAnswer {
  readonly total: number;
  readonly items: readonly Readonly<Record<string, unknown>>[];
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** Code-point order (the byte order of UTF-8), which docs/api.md promises for strings. */
function compareValues(type: FieldType, a: unknown, b: unknown): number {
  switch (type) {
    case 'integer':
    case 'number':
      return Number(a) - Number(b);
    case 'boolean':
      return Number(a) - Number(b);
    case 'timestamp':
      return Date.parse(String(a)) - Date.parse(String(b));
    default:
      return Buffer.compare(utf8(String(a)), utf8(String(b)));
  }
}

const isAbsent = (value: unknown): boolean => value === null || value === undefined;

function equals(type: FieldType, stored: unknown, value: unknown): boolean {
  return !isAbsent(stored) && compareValues(type, stored, value) === 0;
}

function regexMatches(stored: unknown, pattern: string, options: string): boolean {
  // RE2 and JavaScript agree on the patterns the test draws; `s`: `.` matches a newline.
  return typeof stored === 'string' && new RegExp(pattern, `su${options}`).test(stored);
}

function operatorHolds(type: FieldType, stored: unknown, op: string, value: unknown, options: string): boolean {
  switch (op) {
    case '$eq':
      return value === null ? isAbsent(stored) : equals(type, stored, value);
    case '$ne':
      return value === null ? !isAbsent(stored) : !equals(type, stored, value);
    case '$gt':
      return !isAbsent(stored) && compareValues(type, stored, value) > 0;
    case '$gte':
      return !isAbsent(stored) && compareValues(type, stored, value) >= 0;
    case '$lt':
      return !isAbsent(stored) && compareValues(type, stored, value) < 0;
    case '$lte':
      return !isAbsent(stored) && compareValues(type, stored, value) <= 0;
    case '$in':
      return (value as unknown[]).some((item) => equals(type, stored, item));
    case '$nin':
      return !(value as unknown[]).some((item) => equals(type, stored, item));
    case '$exists':
      return value === !isAbsent(stored);
    case '$regex':
      return regexMatches(stored, String(value), options);
    default:
      throw new Error(`the model has no operator ${op}`);
  }
}

const isOperatorObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).every((key) => key.startsWith('$'));

/** A field's condition: a scalar (equality) or an object of operators, combined with AND. */
function fieldHolds(type: FieldType, stored: unknown, condition: unknown): boolean {
  if (!isOperatorObject(condition)) return operatorHolds(type, stored, '$eq', condition, '');
  const options = typeof condition['$options'] === 'string' ? condition['$options'] : '';
  return Object.entries(condition).every(([op, value]) => {
    if (op === '$options') return true;
    if (op === '$not') return !fieldHolds(type, stored, value);
    return operatorHolds(type, stored, op, value, options);
  });
}

/** Whether `doc` matches a `where` object (keys combine with AND). */
function whereHolds(types: FieldTypes, doc: Doc, where: unknown): boolean {
  return Object.entries(where as Record<string, unknown>).every(([key, value]) => {
    if (key === '$and') return (value as unknown[]).every((child) => whereHolds(types, doc, child));
    if (key === '$or') return (value as unknown[]).some((child) => whereHolds(types, doc, child));
    if (key === '$not') return !whereHolds(types, doc, value);
    const type = types[key];
    if (!type) throw new Error(`the model has no field ${key}`);
    return fieldHolds(type, doc[key], value);
  });
}

/** A query-parameter filter (`field=v` or `field__op=v`) as the `where` condition it means. */
function paramCondition(types: FieldTypes, name: string, text: string): { field: string; condition: unknown } {
  const [field = '', op] = name.split('__');
  const type = types[field];
  if (!type) throw new Error(`the model has no field ${field}`);
  const scalar = (part: string): unknown => {
    if (type === 'integer' || type === 'number') return Number(part);
    if (type === 'boolean') return part === 'true';
    return part;
  };
  if (op === undefined) return { field, condition: scalar(text) };
  if (op === 'in' || op === 'nin') return { field, condition: { [`$${op}`]: text.split(',').map(scalar) } };
  if (op === 'exists') return { field, condition: { $exists: text === 'true' } };
  if (op === 'regex') return { field, condition: { $regex: text } };
  return { field, condition: { [`$${op}`]: scalar(text) } };
}

/** What a list request should answer over `docs` (the records the caller can see). */
export function expectedAnswer(types: FieldTypes, docs: readonly Doc[], request: ListRequest): ListAnswer {
  const conditions = Object.entries(request.params).map(([name, text]) => paramCondition(types, name, text));
  const matching = docs.filter(
    (doc) => (request.where === undefined || whereHolds(types, doc, request.where)) && conditions.every(({ field, condition }) => fieldHolds(types[field] ?? 'string', doc[field], condition)),
  );
  const keys = request.sort?.length ? [...request.sort] : [{ field: 'created_at', descending: true }];
  const last = keys[keys.length - 1];
  if (last && !keys.some((key) => key.field === '_id')) keys.push({ field: '_id', descending: last.descending });
  const sorted = [...matching].sort((a, b) => {
    for (const { field, descending } of keys) {
      const order = sortOrder(types[field] ?? 'string', a[field], b[field]);
      if (order !== 0) return descending ? -order : order;
    }
    return 0;
  });
  const page = sorted.slice((request.page - 1) * request.perPage, request.page * request.perPage);
  return { total: matching.length, items: page.map((doc) => project(doc, request.fields)) };
}

/** Ascending order with absent values first (so descending puts them last). */
function sortOrder(type: FieldType, a: unknown, b: unknown): number {
  if (isAbsent(a) || isAbsent(b)) return Number(!isAbsent(a)) - Number(!isAbsent(b));
  return Math.sign(compareValues(type, a, b));
}

function project(doc: Doc, fields: readonly string[] | undefined): Readonly<Record<string, unknown>> {
  if (!fields) return doc;
  const keep = new Set(['_id', ...fields]);
  return Object.fromEntries(Object.entries(doc).filter(([key]) => keep.has(key)));
}
