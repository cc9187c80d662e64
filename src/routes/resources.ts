import type { FastifyInstance, FastifyRequest } from 'fastify';
import { installJsonBodies } from '../http/json-bodies.js';
import { setPaginationHeaders } from '../http/pagination.js';
import { pathId } from '../http/path-id.js';
import { parseListQuery } from '../query/parse-list-query.js';
import type { QueryString } from '../query/list-query.js';
import { resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import type { ResourceService } from '../services/resource-service.js';
import { requestContext } from './request-context.js';

interface IdParams {
  readonly id: string;
}

/** The generated CRUD routes of every resource, each declaring its capability. */
export function resourceRoutes(service: ResourceService, origin: string) {
  return async function register(app: FastifyInstance): Promise<void> {
    installJsonBodies(app);
    for (const resource of resources) registerResource(app, service, origin, resource);
  };
}

function registerResource(app: FastifyInstance, service: ResourceService, origin: string, resource: ResourceDef): void {
  const collection = `/v1/${resource.name}`;
  const item = `${collection}/:id`;
  const can = (op: string) => resource.operations.includes(op as never);
  const capability = (op: string) => ({ capability: `${resource.name}:${op}` });

  if (can('list')) {
    app.get(collection, { config: capability('list') }, async (request, reply) => {
      const query = parseListQuery(resource, request.query as QueryString);
      const { items, total } = await service.list(requestContext(request), resource, query);
      setPaginationHeaders(reply, { total, page: query.page, perPage: query.perPage }, origin, request.url);
      return { items, total, page: query.page, per_page: query.perPage };
    });
  }
  if (can('create')) {
    app.post(collection, { config: capability('create') }, async (request, reply) => {
      const { record, etag } = await service.create(requestContext(request), resource, request.body);
      return reply.code(201).header('etag', etag).header('location', `${origin}${collection}/${String(record._id)}`).send(record);
    });
  }
  if (can('read')) {
    app.get<{ Params: IdParams }>(item, { config: capability('read') }, async (request, reply) => {
      const { record, etag } = await service.read(requestContext(request), resource, pathId(request.params.id, resource.name));
      return reply.header('etag', etag).send(record);
    });
  }
  if (can('update')) {
    app.patch<{ Params: IdParams }>(item, { config: capability('update') }, async (request, reply) => {
      const { record, etag } = await service.update(requestContext(request), resource, pathId(request.params.id, resource.name), ifMatch(request), request.body);
      return reply.header('etag', etag).send(record);
    });
  }
  if (can('delete')) {
    app.delete<{ Params: IdParams }>(item, { config: capability('delete') }, async (request, reply) => {
      await service.remove(requestContext(request), resource, pathId(request.params.id, resource.name), ifMatch(request));
      return reply.code(204).send();
    });
  }
}

function ifMatch(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(', ') : value;
}
