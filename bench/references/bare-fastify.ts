/**
 * Reference server: a bare Fastify route answering `GET /v1/products/:id` with the product
 * JSON the service returns, from memory (no auth, no database): the HTTP ceiling of this
 * machine for that response. Env: PORT, BODY_FILE (the JSON).
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const port = Number(process.env.PORT);
const file = process.env.BODY_FILE;
if (!Number.isInteger(port) || !file) throw new Error('PORT and BODY_FILE are required');
const body = readFileSync(file, 'utf8');

const app = Fastify({ logger: false });
app.get('/v1/products/:id', async (_request, reply) => reply.header('etag', '"bench"').type('application/json; charset=utf-8').send(body));
app.get('/ready', async () => ({ status: 'pass' }));
await app.listen({ port, host: '127.0.0.1' });
