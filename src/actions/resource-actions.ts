import { Readable } from 'node:stream';
import { storedFields } from '../db/schema.js';
import { hiddenFields } from '../derive/field-access.js';
import { resourceOperation } from '../derive/openapi/resource-operations.js';
import { resourceSchemas, schemaName } from '../derive/openapi/resource-schemas.js';
import { serializerSchema } from '../derive/response-serializers.js';
import { csvLine } from '../export/csv.js';
import { streamRows } from '../export/stream-records.js';
import { validationError } from '../http/errors.js';
import { paginationHeaders } from '../http/pagination.js';
import { pathId } from '../http/path-id.js';
import { parseListQuery } from '../query/parse-list-query.js';
import type { QueryString } from '../query/list-query.js';
import { reservedColumns } from '../registry/define-resource.js';
import type { Operation, ResourceDef } from '../registry/types.js';
import type { Principal } from '../core/principal.js';
import type { ActionDef, ActionInput, HttpMethod } from './action.js';
import type { UnknownMembers } from './input-errors.js';

const serverOwnedMessage = 'is set by the service and cannot be written';

/**
 * How a create or update body's members outside its schema are refused: bookkeeping
 * columns and server-owned fields are the service's, create-only and write-only fields
 * cannot change; anything else is no field at all.
 */
function bodyMembers(resource: ResourceDef, op: 'create' | 'update'): UnknownMembers {
  const refused: Record<string, string> = Object.fromEntries(reservedColumns.map((name) => [name, serverOwnedMessage]));
  for (const name of resource.fieldNames) {
    const field = resource.fields[name];
    if (field?.serverOwned) refused[name] = serverOwnedMessage;
    else if (op === 'update' && (field?.immutable || field?.writeOnly)) refused[name] = 'cannot be changed after creation';
  }
  return { unknown: 'is not a field of this resource', refused };
}

/** The body each operation accepts and the JSON answer compiled into its serialiser. */
function operationSchemas(resource: ResourceDef, op: Operation): ActionDef['schemas'] {
  switch (op) {
    case 'list':
      return { response: { 200: serializerSchema(schemaName(resource, 'List')) } };
    case 'create': {
      const record = serializerSchema(schemaName(resource, 'Record'));
      const extras = Object.fromEntries(Object.keys(resource.shownOnCreate ?? {}).map((name) => [name, { type: 'string' }]));
      return {
        body: resourceSchemas(resource)[schemaName(resource, 'Create')],
        unknownMembers: bodyMembers(resource, 'create'),
        response: { 201: { ...record, properties: { ...(record.properties as object), ...extras } } },
      };
    }
    case 'read':
      return { response: { 200: serializerSchema(schemaName(resource, 'Record')) } };
    case 'update':
      return { body: resourceSchemas(resource)[schemaName(resource, 'Update')], unknownMembers: bodyMembers(resource, 'update'), response: { 200: serializerSchema(schemaName(resource, 'Record')) } };
    default:
      return {};
  }
}

/**
 * Resources whose writes are administrative (CONTRACT.md part 2): a user needs a sign-in
 * with TOTP for them (step-up, RFC 9470). User writes are included for role changes.
 */
const administrative: ReadonlySet<string> = new Set(['api-clients', 'tenants', 'webhooks', 'legal-holds', 'retention-policies', 'users']);

/** The declaration fields every collection operation shares. */
function declare(resource: ResourceDef, op: Operation, method: HttpMethod, path: string, run: ActionDef['run']): ActionDef {
  return {
    resource: resource.name,
    name: op,
    method,
    path,
    capability: `${resource.name}:${op}`,
    rateLimitGroup: op === 'export' ? 'exports' : method === 'GET' ? 'reads' : 'writes',
    authentication: 'client',
    stepUp: method !== 'GET' && administrative.has(resource.name),
    openapi: resourceOperation(resource, op),
    schemas: operationSchemas(resource, op),
    run,
  };
}

/** The `{id}` of an item path (404 for ids that cannot name a record). */
function idOf(input: ActionInput, resource: ResourceDef): string {
  return pathId(input.params.id ?? '', resource.name);
}

/**
 * The collection operations a resource's registry entry lists, as actions: list, create,
 * read, update, delete and export, at `/v1/{resource}` and `/v1/{resource}/{id}`.
 */
export function resourceActions(resource: ResourceDef): ActionDef[] {
  const collection = `/v1/${resource.name}`;
  const item = `${collection}/:id`;
  const build: Record<Operation, () => ActionDef> = {
    list: () =>
      declare(resource, 'list', 'GET', collection, async (input, { resources, origin }) => {
        const query = parseListQuery(resource, input.query);
        const { items, total } = await resources.list(input.context, resource, query);
        return { status: 200, headers: paginationHeaders({ total, page: query.page, perPage: query.perPage }, origin, input.url), body: { items, total, page: query.page, per_page: query.perPage } };
      }),
    create: () =>
      declare(resource, 'create', 'POST', collection, async (input, { resources, origin }) => {
        const { record, etag } = await resources.create(input.context, resource, input.body);
        return { status: 201, headers: { etag, location: `${origin}${collection}/${String(record._id)}` }, body: record };
      }),
    read: () =>
      declare(resource, 'read', 'GET', item, async (input, { resources }) => {
        const { record, etag } = await resources.read(input.context, resource, idOf(input, resource));
        return { status: 200, headers: { etag }, body: record };
      }),
    update: () =>
      declare(resource, 'update', 'PATCH', item, async (input, { resources }) => {
        const { record, etag } = await resources.update(input.context, resource, idOf(input, resource), input.ifMatch, input.body);
        return { status: 200, headers: { etag }, body: record };
      }),
    delete: () =>
      declare(resource, 'delete', 'DELETE', item, async (input, { resources }) => {
        await resources.remove(input.context, resource, idOf(input, resource), input.ifMatch);
        return { status: 204 };
      }),
    export: () => declare(resource, 'export', 'GET', `${collection}/export`, (input, services) => exportRecords(resource, input, services)),
  };
  return resource.operations.map((op) => build[op]());
}

type Format = 'ndjson' | 'csv';

function formatOf(query: QueryString): Format {
  const format = query.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv') throw validationError([{ field: 'format', message: 'must be ndjson or csv' }]);
  return format;
}

/**
 * Every match of the list query (same filters, no page limit) streamed as NDJSON or CSV,
 * tenant-scoped like any read.
 */
async function exportRecords(resource: ResourceDef, input: ActionInput, { resources }: Parameters<ActionDef['run']>[1]) {
  const format = formatOf(input.query);
  const query = parseListQuery(resource, input.query, { extraReserved: ['format'] });
  const { principal } = input.context;
  const columns = visibleColumns(resource, principal, query.fields ?? storedFields(resource));
  const batches = streamRows(resources.queries(principal), resource, query);
  // Pull the first batch before answering, so a bad query is still a clean 4xx.
  const first = await batches.next();
  const lines = async function* (): AsyncGenerator<string> {
    if (format === 'csv') yield csvLine(columns);
    let batch = first;
    while (!batch.done) {
      const records = await resources.presentMany(resource, principal, batch.value);
      // Chunks of 100 records stay small enough for V8's young generation; a whole
      // batch as one string (~1 MB) lands in large-object space and lingers.
      for (let start = 0; start < records.length; start += 100) {
        yield records
          .slice(start, start + 100)
          .map((record) => (format === 'csv' ? csvLine(columns.map((c) => record[c])) : `${JSON.stringify(pick(record, query.fields))}\n`))
          .join('');
      }
      batch = await batches.next();
    }
  };
  const filename = `${resource.name}-${new Date().toISOString().slice(0, 10)}.${format === 'csv' ? 'csv' : 'ndjson'}`;
  return {
    status: 200,
    headers: { 'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson', 'content-disposition': `attachment; filename="${filename}"` },
    stream: Readable.from(lines()),
  };
}

/** Sensitive columns the caller may not read are left out of the CSV header too. */
function visibleColumns(resource: ResourceDef, principal: Principal, columns: readonly string[]): readonly string[] {
  const hidden = hiddenFields(resource, principal);
  return columns.filter((c) => !hidden.includes(c));
}

function pick(record: Record<string, unknown>, fields: readonly string[] | null): Record<string, unknown> {
  if (!fields) return record;
  return Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]));
}
