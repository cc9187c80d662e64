import type { Operation as ResourceOperation, ResourceDef } from '../../registry/types.js';
import { listHeaders } from './headers.js';
import { exportParameters, listParameters } from './list-parameters.js';
import { problems } from './problems.js';
import { schemaName } from './resource-schemas.js';
import { operationKey, ref } from './types.js';
import type { OpenApiObject, Operation } from './types.js';

function json(schemaRef: OpenApiObject): OpenApiObject {
  return { 'application/json': { schema: schemaRef } };
}

function headers(...names: string[]): OpenApiObject {
  return Object.fromEntries(names.map((n) => [n, ref('headers', n)]));
}

function operationId(op: string, resource: ResourceDef): string {
  return `${op}_${resource.name.replaceAll('-', '_')}`;
}

const slashNote = (collection: string) => `Also answers at \`${collection}/\` (trailing slash).`;

/** The OpenAPI operation of one of a resource's collection operations. */
export function resourceOperation(resource: ResourceDef, op: ResourceOperation): Operation {
  return operationsOf(resource, [op])[0]?.[1] as Operation;
}

/** The operations of one resource, as its `operations` declare. */
function operationsOf(resource: ResourceDef, ops: readonly ResourceOperation[] = resource.operations): [string, Operation][] {
  const collection = `/v1/${resource.name}`;
  const item = `${collection}/{id}`;
  const tags = [resource.name];
  const record = ref('schemas', schemaName(resource, 'Record'));
  const id = ref('parameters', 'id');
  const ifMatch = ref('parameters', 'IfMatch');
  const build: Record<ResourceOperation, () => [string, Operation]> = {
    list: () => [
      operationKey('GET', collection),
      {
        operationId: operationId('list', resource),
        summary: `List ${resource.name}`,
        tags,
        description: `Filter, sort, select fields and page through ${resource.name}. ${slashNote(collection)}`,
        parameters: listParameters(resource),
        responses: {
          200: { description: 'One page of records.', headers: listHeaders(), content: json(ref('schemas', schemaName(resource, 'List'))) },
          ...problems('400'),
        },
      },
    ],
    create: () => [
      operationKey('POST', collection),
      {
        operationId: operationId('create', resource),
        summary: `Create a record of ${resource.name}`,
        tags,
        description: `Writes the record and its audit entry in one transaction. ${slashNote(collection)}`,
        requestBody: { required: true, content: json(ref('schemas', schemaName(resource, 'Create'))) },
        responses: {
          201: {
            description: resource.shownOnCreate
              ? `Created. Also carries, this once only: ${Object.entries(resource.shownOnCreate)
                  .map(([name, text]) => `\`${name}\` — ${text}`)
                  .join('; ')}`
              : 'Created.',
            headers: headers('ETag', 'Location'),
            content: json(
              resource.shownOnCreate
                ? {
                    allOf: [
                      record,
                      { type: 'object', properties: Object.fromEntries(Object.keys(resource.shownOnCreate).map((name) => [name, { type: 'string' }])), required: Object.keys(resource.shownOnCreate) },
                    ],
                  }
                : record,
            ),
          },
          ...problems('400', '413', '415'),
        },
      },
    ],
    read: () => [
      operationKey('GET', item),
      {
        operationId: operationId('read', resource),
        summary: `Read a record of ${resource.name}`,
        tags,
        parameters: [id],
        responses: { 200: { description: 'The record.', headers: headers('ETag'), content: json(record) }, ...problems('400', '404') },
      },
    ],
    update: () => [
      operationKey('PATCH', item),
      {
        operationId: operationId('update', resource),
        summary: `Update a record of ${resource.name}`,
        tags,
        parameters: [id, ifMatch],
        description: 'Only the fields to change. Needs the current ETag in `If-Match`.',
        requestBody: { required: true, content: json(ref('schemas', schemaName(resource, 'Update'))) },
        responses: { 200: { description: 'The updated record, with its new ETag.', headers: headers('ETag'), content: json(record) }, ...problems('400', '404', '412', '413', '415', '428') },
      },
    ],
    delete: () => [
      operationKey('DELETE', item),
      {
        operationId: operationId('delete', resource),
        summary: `Delete a record of ${resource.name}`,
        tags,
        parameters: [id, ifMatch],
        description: 'Soft delete; the audit trail keeps a full snapshot. Refused (409) while live child records exist.',
        responses: { 204: { description: 'Deleted.' }, ...problems('400', '404', '409', '412', '428') },
      },
    ],
    export: () => [
      operationKey('GET', `${collection}/export`),
      {
        operationId: operationId('export', resource),
        summary: `Export ${resource.name}`,
        tags,
        description: 'Every record matching the list filters, without page limit, streamed as NDJSON (one record per line) or CSV.',
        parameters: exportParameters(resource),
        responses: {
          200: {
            description: 'The matching records.',
            headers: headers('Content-Disposition'),
            content: {
              'application/x-ndjson': { schema: { type: 'string' }, 'x-item-schema': ref('schemas', schemaName(resource, 'ListItem')) },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...problems('400'),
        },
      },
    ],
  };
  return ops.map((op) => build[op]());
}
