/**
 * A partner back end's integration with the booking service, using the client library:
 * create a product, book it, page through its bookings, and change it safely while other
 * writers change it too (ETag with retry). `npm test` runs this file against the service.
 *
 *   BOOKING_URL=http://localhost:3000 BOOKING_CLIENT_ID=<client_id> BOOKING_KEY_FILE=client.key \
 *     npx tsx examples/integration.ts
 *
 * The client needs products:create products:read products:update bookings:create bookings:list
 * webhooks:create. The example also receives the service's webhooks: it listens on
 * BOOKING_WEBHOOK_HOST (default 127.0.0.1) and the service must be allowed to reach it
 * (WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOWED_NETWORKS=127.0.0.1/32 for a local try).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
// In your own project: import { createClient, ... } from '@booking-service/client';
import { createClient, ProblemError, verifyWebhook } from '../packages/client/src/index.js';

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const client = createClient({
  baseUrl: setting('BOOKING_URL', 'http://localhost:3000'),
  clientId: setting('BOOKING_CLIENT_ID'),
  privateKey: readFileSync(setting('BOOKING_KEY_FILE', 'client.key'), 'utf8'),
  dpop: process.env.BOOKING_DPOP === 'true',
});

/** A webhook receiver: verifies every delivery (Standard Webhooks) and remembers its type. */
const received: string[] = [];
let secret = '';
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  request.on('end', () => {
    verifyWebhook<{ type: string }>(secret, request.headers as Record<string, string>, body).then(
      (event) => {
        received.push(event.payload.type);
        response.writeHead(204).end();
      },
      () => response.writeHead(400).end(),
    );
  });
});
await new Promise<void>((resolve) => receiver.listen(0, setting('BOOKING_WEBHOOK_HOST', '127.0.0.1'), resolve));
const { port } = receiver.address() as { port: number };

try {
  // 0. Subscribe to new bookings; the signing secret is in the create answer only.
  const { record: webhook } = await client.webhooks.create({ url: `http://${setting('BOOKING_WEBHOOK_HOST', '127.0.0.1')}:${port}/hooks`, events: ['bookings.created'] });
  secret = String((webhook as { secret?: string }).secret);

  // 1. A product with ten units.
  const { record: product } = await client.products.create({ name: 'Harbour loft', address: 'Kai 4', city: 'Hamburg', zip_code: '20457', total_items: 10 });

  // 2. Book it: one booking per night for a week.
  const firstNight = Date.UTC(2030, 5, 1, 15);
  for (let night = 0; night < 7; night++) {
    const start = new Date(firstNight + night * 86_400_000);
    const end = new Date(start.getTime() + 19 * 3_600_000);
    await client.bookings.create({ product_id: product._id, start_time: start.toISOString(), end_time: end.toISOString(), notes: `night ${night + 1}` });
  }

  // 3. Page through its bookings, three per request, oldest first, two fields only.
  const nights: string[] = [];
  for await (const booking of client.bookings.list({ where: { product_id: product._id }, sort: ['start_time'], fields: ['start_time'], perPage: 3 })) {
    nights.push(booking.start_time);
  }

  // 4. Two writers take units away at the same time; each re-reads and retries on 412,
  //    so neither change is lost.
  const takeOne = () => client.products.updateWithRetry(product._id, (current) => ({ total_items: current.total_items - 1 }));
  await Promise.all([takeOne(), takeOne(), takeOne()]);
  const { record: after, etag } = await client.products.get(product._id);

  // 5. The service delivers a signed webhook per booking (it retries until we answer 2xx).
  for (let wait = 0; received.length < 7 && wait < 150; wait++) await new Promise((resolve) => setTimeout(resolve, 100));

  console.log(
    JSON.stringify({ product_id: product._id, bookings: nights.length, first_night: nights[0], last_night: nights.at(-1), total_items: after.total_items, etag, webhooks_verified: received.length }),
  );
} catch (error) {
  // Problems carry a stable code (and field errors for validation).
  if (error instanceof ProblemError) console.error(`${error.status} ${error.code}: ${error.detail}`, error.errors);
  else console.error(error);
  process.exitCode = 1;
} finally {
  receiver.close();
}
