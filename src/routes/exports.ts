import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/dialect.js';
import { storedFields } from '../db/schema.js';
import { csvLine } from '../export/csv.js';
import { streamRows } from '../export/stream-records.js';
import { validationError } from '../http/errors.js';
import { parseListQuery } from '../query/parse-list-query.js';
import type { QueryString } from '../query/list-query.js';
import { resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { readFieldCapability } from '../derive/field-access.js';
import { hasCapability } from '../security/principal.js';
import type { Principal } from '../security/principal.js';
import type { ResourceService } from '../services/resource-service.js';
import { requestContext } from './request-context.js';

type Format = 'ndjson' | 'csv';

function formatOf(query: QueryString): Format {
  const format = query.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv') throw validationError([{ field: 'format', message: 'must be ndjson or csv' }]);
  return format;
}

/**
 * `GET /v1/{resource}/export` for resources with an export: every match of the list query
 * (same filters, no page limit) streamed as NDJSON or CSV, tenant-scoped like any read.
 */
export function exportRoutes(database: Database, service: ResourceService) {
  return async function register(app: FastifyInstance): Promise<void> {
    for (const resource of resources.filter((r) => r.operations.includes('export'))) {
      app.get(`/v1/${resource.name}/export`, { config: { capability: `${resource.name}:export` } }, async (request, reply) => {
        const raw = request.query as QueryString;
        const format = formatOf(raw);
        const query = parseListQuery(resource, raw, { extraReserved: ['format'] });
        const { principal } = requestContext(request);
        const columns = visibleColumns(resource, principal, query.fields ?? storedFields(resource));
        const batches = streamRows(service.queries(principal), resource, query);
        // Pull the first batch before answering, so a bad query is still a clean 4xx.
        const first = await batches.next();
        const lines = async function* (): AsyncGenerator<string> {
          if (format === 'csv') yield csvLine(columns);
          let batch = first;
          while (!batch.done) {
            const records = await service.presentMany(resource, principal, batch.value);
            // Chunks of 100 records stay small enough for V8's young generation; a whole
            // batch as one string (~1 MB) lands in large-object space and lingers.
            for (let start = 0; start < records.length; start += 100) {
              yield records.slice(start, start + 100).map((record) => (format === 'csv' ? csvLine(columns.map((c) => record[c])) : `${JSON.stringify(pick(record, query.fields))}\n`)).join('');
            }
            batch = await batches.next();
          }
        };
        const filename = `${resource.name}-${new Date().toISOString().slice(0, 10)}.${format === 'csv' ? 'csv' : 'ndjson'}`;
        return reply
          .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .send(Readable.from(lines()));
      });
    }
  };
}

/** Sensitive columns the caller may not read are left out of the CSV header too. */
function visibleColumns(resource: ResourceDef, principal: Principal, columns: readonly string[]): readonly string[] {
  return columns.filter((c) => !resource.fields[c]?.sensitive || hasCapability(principal, readFieldCapability(resource, c)));
}

function pick(record: Record<string, unknown>, fields: readonly string[] | null): Record<string, unknown> {
  if (!fields) return record;
  return Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]));
}

