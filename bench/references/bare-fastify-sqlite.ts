/**
 * Reference server: the least any authenticated `GET /v1/products/:id` has to do, with
 * none of the service's framework: bare Fastify that, per request, sets the response
 * headers the service sends (the same helmet set, a request id, `cache-control`), looks the
 * Bearer token up by its SHA-256 in a Map (the service's cache of tokens it issued), reads
 * the product by primary key and tenant from the service's own SQLite file, and returns it
 * as JSON with its ETag. The gap between this and `bare-fastify` is the cost of headers
 * and one database read on this machine; the gap between this and `get-bearer` is
 * everything else the service does (routing of scopes, capability and tenant checks,
 * Kysely, metrics, field access). Like the service it logs each request, with Fastify's
 * own pino logger as Fastify sets it up (its request lines, synchronously to stdout) at
 * the service's level, LOG_LEVEL. Env: PORT, DB_FILE, TENANT_ID, LOG_LEVEL.
 */
import { createHash, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { helmetHeaders } from '../../src/edge/security-headers.js';

const port = Number(process.env.PORT);
const file = process.env.DB_FILE;
const tenantId = process.env.TENANT_ID;
if (!Number.isInteger(port) || !file || !tenantId) throw new Error('PORT, DB_FILE and TENANT_ID are required');

const db = new Database(file, { readonly: true, fileMustExist: true });
const byId = db.prepare('select * from "products" where "_id" = ? and "deleted_at" is null and "tenant_id" = ?');
const headers = helmetHeaders();
/** Tokens "issued" so far: any token is admitted on first sight, then found by its hash. */
const known = new Map<string, true>();

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });
app.get<{ Params: { id: string } }>('/v1/products/:id', async (request, reply) => {
  reply.headers(headers).header('x-request-id', randomUUID()).header('cache-control', 'no-store');
  const digest = createHash('sha256').update(String(request.headers.authorization)).digest('base64url');
  if (!known.has(digest)) known.set(digest, true);
  const row = byId.get(request.params.id, tenantId) as Record<string, unknown> | undefined;
  if (!row) return reply.code(404).send({ status: 404 });
  return reply.header('etag', String(row.etag)).send(row);
});
app.get('/ready', async () => ({ status: 'pass' }));
await app.listen({ port, host: '127.0.0.1' });
