import { Readable } from 'node:stream';
import { actionKey } from '../actions/action.js';
import type { ActionInput, ActionResult } from '../actions/action.js';
import type { Principal } from '../core/principal.js';
import { storedFields } from '../db/schema.js';
import { hiddenFields } from '../derive/field-access.js';
import { csvLine } from '../export/csv.js';
import { streamRows } from '../export/stream-records.js';
import { validationError } from '../http/errors.js';
import { pathId } from '../http/path-id.js';
import type { QueryString } from '../query/list-query.js';
import { parseListQuery } from '../query/parse-list-query.js';
import type { Operation, ResourceDef } from '../registry/types.js';
import type { ActionServices, Handler, Handlers } from './handler.js';
import { pageAnswer } from './page-answer.js';

/** The `{id}` of an item path (404 for ids that cannot name a record). */
function idOf(input: ActionInput, resource: ResourceDef): string {
  return pathId(input.params.id ?? '', resource.name);
}

/**
 * The handlers of the collection operations a resource's registry entry lists
 * (`resourceActions` in `src/actions/resource-actions.ts`): list, create, read, update,
 * delete and export.
 */
export function resourceHandlers(resource: ResourceDef): Handlers {
  const collection = `/v1/${resource.name}`;
  const all: Record<Operation, Handler> = {
    list: async (input, { resources, origin }) => {
      const query = parseListQuery(resource, input.query);
      const { items, total } = await resources.list(input.context, resource, query);
      return pageAnswer({ items, total, page: query.page, per_page: query.perPage }, origin, input.url);
    },
    create: async (input, { resources, origin }) => {
      const { record, etag, headers } = await resources.create(input.context, resource, input.body);
      return { status: 201, headers: { ...headers, etag, location: `${origin}${collection}/${String(record._id)}` }, body: record };
    },
    read: async (input, { resources }) => {
      const { record, etag } = await resources.read(input.context, resource, idOf(input, resource));
      return { status: 200, headers: { etag }, body: record };
    },
    update: async (input, { resources }) => {
      const { record, etag } = await resources.update(input.context, resource, idOf(input, resource), input.ifMatch, input.body);
      return { status: 200, headers: { etag }, body: record };
    },
    delete: async (input, { resources }) => {
      await resources.remove(input.context, resource, idOf(input, resource), input.ifMatch);
      return { status: 204 };
    },
    export: (input, services) => exportRecords(resource, input, services),
  };
  return Object.fromEntries(resource.operations.map((op) => [actionKey({ resource: resource.name, name: op }), all[op]]));
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
async function exportRecords(resource: ResourceDef, input: ActionInput, { resources }: ActionServices): Promise<ActionResult> {
  const format = formatOf(input.query);
  const query = parseListQuery(resource, input.query, { extraReserved: ['format'], unpaged: true });
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
