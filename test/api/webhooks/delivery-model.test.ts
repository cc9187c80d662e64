/**
 * Outgoing webhook delivery against a brute-force model (./delivery-model.ts) of
 * docs/webhooks.md, over a random sequence of steps on the service's injected clock: writes
 * that fire events heard by one or two of four webhooks (one hears another event type, one
 * is deleted on the way), pings, a real local receiver whose answers are scripted per path
 * and per delivery (2xx, 3xx with a Location, 4xx, 410, 5xx, a dropped connection), the clock
 * moved to a due time exactly, one millisecond short of it, by a schedule wait or far past,
 * dispatcher rounds, manual retries of pending, failed and succeeded deliveries, and webhooks
 * deactivated and reactivated. After every step each delivery (`status`, `attempts`,
 * `last_status_code`, `last_error`, `next_attempt_at`), its attempt rows and what the
 * receiver got (which deliveries, how often, under one `webhook-id`, the same body, stamped
 * with the attempt's time, signed) must be the model's.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness, TestClient } from '../../support/harness.js';
import { answerBody, DeliveryModel, errors } from './delivery-model.js';
import type { Answer, ModelDelivery } from './delivery-model.js';

const steps = Number(process.env['DELIVERY_MODEL_STEPS'] ?? 200);
const seed = Number(process.env['DELIVERY_MODEL_SEED'] ?? 20261129);

/** Three waits, four attempts: a failing delivery is `failed` ten minutes on. The waits differ, so one taken from the wrong entry shows. */
const schedule = [2, 30, 600] as const;
/** Deliveries the sequence lets pile up (pending, or still in the outbox): below what one round sends to one webhook (64). */
const backlogCap = 60;
/** A token is minted again once the clock has moved this far (tokens live 900 s). */
const tokenRefreshMs = 600_000;

const hookPlan = [
  { name: 'A', path: '/a', events: ['products.created'] },
  { name: 'B', path: '/b', events: ['products.created', 'products.updated'] },
  { name: 'C', path: '/c', events: ['products.updated'] },
  // The one a `delete` step removes.
  { name: 'D', path: '/d', events: ['products.created'] },
] as const;

interface Hit {
  readonly path: string;
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
}

/**
 * A real receiver answering each request with the answer queued for its `webhook-id`, else
 * with its path's pattern: the n-th request of one `webhook-id` gets entry n, round and round
 * (204 until set). A 3xx points at `/trap`, which nothing may reach.
 */
async function scriptedReceiver() {
  const patterns = new Map<string, readonly Answer[]>();
  const queued = new Map<string, Answer[]>();
  const hits: Hit[] = [];
  const port = await freePort();
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '');
      const hit = { path: request.url ?? '', id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), body };
      const pattern = patterns.get(hit.path) ?? [];
      const earlier = hits.filter((other) => other.id === hit.id).length;
      hits.push(hit);
      const answer = queued.get(hit.id)?.shift() ?? pattern[earlier % pattern.length] ?? 204;
      if (answer === 'hangup') return void request.socket.destroy();
      response.writeHead(answer, answer >= 300 && answer < 400 ? { location: url('/trap') } : {}).end(answerBody(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url,
    hits,
    patterns,
    queue: (id: string, answers: readonly Answer[]) => queued.set(id, [...(queued.get(id) ?? []), ...answers]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Unbiased: fast-check would favour the first values. */
const answer = fc.noBias(fc.constantFrom<Answer>(200, 204, 204, 400, 404, 429, 500, 503, 503, 301, 302, 307, 308, 410, 'hangup', 'hangup'));
/** Answers queued for one delivery favour the outcomes a path's pattern rarely reaches. */
const queuedAnswer = fc.noBias(fc.constantFrom<Answer>(410, 'hangup', 308, 503, 204));
/** What every path answers until a step changes it: the first attempt fails, the retry succeeds. */
const initialPattern: readonly Answer[] = [503, 204];

const stepArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ping' as const), hook: fc.nat({ max: hookPlan.length - 1 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('answer' as const), hook: fc.nat({ max: hookPlan.length - 1 }), answers: fc.array(answer, { minLength: 1, maxLength: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('queue' as const), pick: fc.nat(), answers: fc.array(queuedAnswer, { minLength: 1, maxLength: 3 }) }) },
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      to: fc.noBias(fc.constantFrom('due' as const, 'due' as const, 'due' as const, 'wait' as const, 'far' as const, 'small' as const)),
      pick: fc.nat(),
      delta: fc.noBias(fc.constantFrom(-1, -1, 0, 0, 1)),
      thenRun: fc.noBias(fc.constantFrom(true, true, false)),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('run' as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('retry' as const),
      hook: fc.nat({ max: hookPlan.length - 1 }),
      status: fc.noBias(fc.constantFrom('pending' as const, 'failed' as const, 'succeeded' as const)),
      pick: fc.nat(),
    }),
  },
  // Reactivations outnumber deactivations: a 410 deactivates too.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('activate' as const), hook: fc.nat({ max: hookPlan.length - 1 }), active: fc.noBias(fc.constantFrom(true, true, false)) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const) }) },
);
type Step = typeof stepArbitrary extends fc.Arbitrary<infer T> ? T : never;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** A timestamp as either database hands it back (ISO text on SQLite, a Date on PostgreSQL). */
const storedIso = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(value instanceof Date ? value : String(value)).toISOString());
const byId = <T extends { _id: string }>(items: T[]): T[] => [...items].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));

describe.each(dialects)('outgoing webhook delivery against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof scriptedReceiver>>;
  let client: TestClient;
  let token = '';
  // A fixed start, so a seed replays exactly; a whole second minus one millisecond, so a
  // 1 ms step moves `webhook-timestamp` on.
  const start = Date.parse('2031-06-01T08:00:00.999Z');
  let now = start;
  let mintedAt = start;
  const hooks = new Map<string, { readonly id: string; readonly secret: string }>();

  beforeAll(async () => {
    rx = await scriptedReceiver();
    h = await createHarness(dialect, {
      clock: { now: () => now },
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: schedule.join(','), WEBHOOK_TIMEOUT_MS: '5000' },
    });
    const capabilities = [...crud('products'), 'webhooks:create', 'webhooks:read', 'webhooks:list', 'webhooks:update', 'webhooks:delete', 'webhooks:retry', 'webhooks:test'];
    client = await h.client(await h.tenant('Deliveries'), capabilities);
    token = await h.token(client, undefined, now);
    for (const plan of hookPlan) {
      const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: rx.url(plan.path), events: plan.events } });
      expect(created.statusCode, created.body).toBe(201);
      const { _id, secret } = created.json<{ _id: string; secret: string }>();
      hooks.set(plan.name, { id: _id, secret });
    }
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  it('sends, retries, fails and records every delivery as the model says', async () => {
    const model = new DeliveryModel(schedule);
    for (const plan of hookPlan) {
      model.addHook(plan.name, plan.path, plan.events);
      model.setPattern(plan.path, initialPattern);
      rx.patterns.set(plan.path, initialPattern);
    }
    const hookId = (name: string) => hooks.get(name)?.id ?? '';
    const products: { id: string; etag: string }[] = [];
    const tally = new Map<string, number>();
    const count = (label: string) => tally.set(label, (tally.get(label) ?? 0) + 1);
    /** Hits whose signature was already checked. */
    let signedUpTo = 0;

    const send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
      h.request({ method, url, token, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
    const etagOf = async (url: string) => String((await send('GET', url)).headers.etag);

    /** One dispatcher round at the current time; the deliveries it created get their ids from what reached the receiver. */
    async function round(): Promise<ModelDelivery[]> {
      const before = rx.hits.length;
      for (const d of model.pending()) {
        if (d.nextAttemptAt === now + 1) count('a due time 1 ms ahead: not sent');
        const last = d.rows.at(-1);
        if (d.nextAttemptAt === now && last && last.at + (schedule[d.attempts - 1] ?? NaN) * 1000 === now) count('a retry wait reached to the ms: sent');
      }
      await h.app.dispatcher.runOnce();
      const changed = model.run(now);
      for (const hit of rx.hits.slice(before)) {
        if (model.deliveries.some((d) => d.id === hit.id)) continue;
        const event = JSON.parse(hit.body) as { type: string; data: { name?: string } };
        const fresh = model.deliveries.find((d) => d.id === undefined && model.hook(d.hook).path === hit.path && d.type === event.type && d.marker === event.data.name);
        if (fresh) fresh.id = hit.id;
      }
      for (const d of changed) {
        const row = d.rows.at(-1);
        if (d.status === 'failed' && d.lastError === errors.inactive) count(`unsent: webhook ${model.hook(d.hook).deleted ? 'deleted' : 'inactive'}`);
        else if (row?.statusCode === null) count('sent: no answer');
        else if (row) count(`sent: ${String(row.statusCode).slice(0, 1)}xx${row.statusCode === 410 ? ' (410)' : ''}`);
        if (d.status === 'failed' && d.attempts === schedule.length + 1 && row?.at === now && d.lastError !== errors.gone) count('failed after the last wait');
      }
      return changed;
    }

    /** Every delivery, its attempts and the receiver's log as the service has them, against the model. */
    async function compare(what: string, touched: readonly ModelDelivery[]): Promise<void> {
      const deliveryView = (d: ModelDelivery) => ({
        _id: d.id ?? `(never sent: ${d.type} ${d.marker})`,
        type: d.type,
        status: d.status,
        attempts: d.attempts,
        last_status_code: d.lastStatusCode,
        last_error: d.lastError,
        next_attempt_at: iso(d.nextAttemptAt),
        created_at: iso(d.createdAt),
        updated_at: iso(d.updatedAt),
      });
      const pick = (row: Record<string, unknown>) => ({
        _id: String(row['_id']),
        type: row['type'],
        status: row['status'],
        attempts: Number(row['attempts']),
        last_status_code: row['last_status_code'] === null ? null : Number(row['last_status_code']),
        last_error: row['last_error'],
        next_attempt_at: storedIso(row['next_attempt_at']),
        created_at: storedIso(row['created_at']),
        updated_at: storedIso(row['updated_at']),
      });

      // Which webhooks are active (a 410 disables one).
      const listed = await send('GET', '/v1/webhooks?per_page=100&fields=active');
      const active = Object.fromEntries(listed.json<{ items: { _id: string; active: boolean }[] }>().items.map((item) => [item._id, item.active]));
      const expectedActive = Object.fromEntries([...model.hooks.values()].filter((hook) => !hook.deleted).map((hook) => [hookId(hook.name), hook.active]));
      expect(active, `${what}: webhooks active`).toEqual(expectedActive);

      // Each webhook's deliveries: its list, or the table for the deleted one (whose list is a 404).
      for (const hook of model.hooks.values()) {
        const id = hookId(hook.name);
        let actual: ReturnType<typeof pick>[] = [];
        if (hook.deleted) {
          actual = (await h.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).execute()).map((row) => pick(row));
        } else {
          for (let page = 1; ; page += 1) {
            const answer = await send('GET', `/v1/webhooks/${id}/deliveries?per_page=100&page=${page}`);
            expect(answer.statusCode, `${what}: ${answer.body}`).toBe(200);
            const body = answer.json<{ items: Record<string, unknown>[]; total: number }>();
            actual.push(...body.items.map(pick));
            if (actual.length >= body.total || body.items.length === 0) break;
          }
        }
        const expected = model.deliveries.filter((d) => d.hook === hook.name).map(deliveryView);
        expect(byId(actual), `${what}: deliveries of webhook ${hook.name}`).toEqual(byId(expected));
      }

      // Every attempt row, and the attempts list of each delivery this step touched.
      const attemptView = (d: ModelDelivery) =>
        d.rows.map((row) => ({ webhook_id: hookId(d.hook), attempt: row.attempt, status_code: row.statusCode, error: row.error, started_at: iso(row.at), finished_at: iso(row.at), duration_ms: 0 }));
      const pickAttempt = (row: Record<string, unknown>) => ({
        webhook_id: row['webhook_id'],
        attempt: Number(row['attempt']),
        status_code: row['status_code'] === null ? null : Number(row['status_code']),
        error: row['error'],
        started_at: storedIso(row['started_at']),
        finished_at: storedIso(row['finished_at']),
        duration_ms: Number(row['duration_ms']),
      });
      const rows = await h.database.db.selectFrom('webhook_delivery_attempts').selectAll().orderBy('delivery_id').orderBy('attempt').execute();
      const stored: Record<string, ReturnType<typeof pickAttempt>[]> = {};
      for (const row of rows) (stored[row.delivery_id] ??= []).push(pickAttempt(row));
      const modelled = Object.fromEntries(model.deliveries.filter((d) => d.rows.length > 0).map((d) => [d.id ?? `(never sent: ${d.type} ${d.marker})`, attemptView(d)]));
      expect(stored, `${what}: attempt rows`).toEqual(modelled);
      for (const d of touched) {
        if (d.id === undefined || model.hook(d.hook).deleted) continue;
        const answer = await send('GET', `/v1/webhooks/${hookId(d.hook)}/deliveries/${d.id}/attempts?per_page=100`);
        expect(answer.statusCode, `${what}: ${answer.body}`).toBe(200);
        const body = answer.json<{ items: Record<string, unknown>[]; total: number }>();
        expect({ total: body.total, items: body.items.map(pickAttempt) }, `${what}: attempts of ${d.id}`).toEqual({ total: d.rows.length, items: attemptView(d) });
      }

      // The receiver's log: per `webhook-id`, where each request went, its timestamp in seconds, one body.
      const got: Record<string, { path: string; timestamps: string[]; bodies: string[] }> = {};
      for (const hit of rx.hits) {
        const entry = (got[hit.id] ??= { path: hit.path, timestamps: [], bodies: [] });
        if (hit.path !== entry.path) entry.path += ` ${hit.path}`;
        entry.timestamps.push(hit.timestamp);
        if (!entry.bodies.includes(hit.body)) entry.bodies.push(hit.body);
      }
      const log = Object.fromEntries(
        Object.entries(got).map(([id, entry]) => {
          const bodies = entry.bodies.map((body) => JSON.parse(body) as { type: string; data: { name?: string; webhook_id?: string } });
          return [id, { path: entry.path, timestamps: entry.timestamps, events: bodies.map((body) => `${body.type} ${body.data.name ?? body.data.webhook_id}`) }];
        }),
      );
      const expectedLog = Object.fromEntries(
        model.deliveries
          .filter((d) => d.rows.length > 0)
          .map((d) => [
            d.id ?? `(never sent: ${d.type} ${d.marker})`,
            { path: model.hook(d.hook).path, timestamps: d.rows.map((row) => String(Math.floor(row.at / 1000))), events: [`${d.type} ${d.marker}`] },
          ]),
      );
      expect(log, `${what}: the receiver's log`).toEqual(expectedLog);
      // Each new request is signed with its webhook's secret over its id, timestamp and body.
      for (const hit of rx.hits.slice(signedUpTo)) {
        const secret = [...model.hooks.values()].find((hook) => hook.path === hit.path);
        const expected = new Webhook(hooks.get(secret?.name ?? '')?.secret ?? '').sign(hit.id, new Date(Number(hit.timestamp) * 1000), hit.body);
        expect(hit.signature, `${what}: signature of a request to ${hit.path}`).toBe(expected);
      }
      signedUpTo = rx.hits.length;
    }

    /** The clock target of an `advance` step. */
    function target(s: Extract<Step, { kind: 'advance' }>): number {
      if (s.to === 'due') {
        const ahead = [...new Set(model.pending().flatMap((d) => (d.nextAttemptAt !== null && d.nextAttemptAt > now ? [d.nextAttemptAt] : [])))].sort((a, b) => a - b);
        const at = ahead[s.pick % Math.min(3, ahead.length)];
        if (at !== undefined) return Math.max(now, at + s.delta);
      }
      if (s.to === 'far') return now + 3_600_000 + (s.pick % 1000);
      if (s.to === 'small') return now + 1 + (s.pick % 1500);
      return now + (schedule[s.pick % schedule.length] ?? 0) * 1000 + s.delta;
    }

    for (const [index, sampled] of fc.sample(stepArbitrary, { seed, numRuns: steps }).entries()) {
      const touched: ModelDelivery[] = [];
      // Writes, pings and retries wait while the queue is full, and the deletion until the webhook has a delivery pending: a round instead.
      const full = model.backlog() >= backlogCap && ['create', 'update', 'ping', 'retry'].includes(sampled.kind);
      const undeletable = sampled.kind === 'delete' && (model.hook('D').deleted || !model.pending().some((d) => d.hook === 'D'));
      const s: Step = full || undeletable ? { kind: 'run' } : sampled.kind === 'update' && products.length === 0 ? { kind: 'create' } : sampled;
      const from = now;
      const what = `step ${index} (seed ${seed}, ${steps} steps) ${JSON.stringify(s)}${s === sampled ? '' : ` instead of ${JSON.stringify(sampled)}`} at start + ${from - start} ms`;
      count(`step ${s.kind}${s.kind === 'advance' ? ` ${s.to} ${s.delta}` : ''}`);

      switch (s.kind) {
        case 'create': {
          const name = `w${index}`;
          const created = await send('POST', '/v1/products', { name, address: 'A 1', city: 'C', zip_code: '1', total_items: 1 });
          expect(created.statusCode, `${what}: ${created.body}`).toBe(201);
          products.push({ id: created.json<{ _id: string }>()._id, etag: String(created.headers.etag) });
          model.write('products.created', name);
          break;
        }
        case 'update': {
          const name = `w${index}`;
          const product = products[s.pick % products.length] as { id: string; etag: string };
          const patched = await send('PATCH', `/v1/products/${product.id}`, { name }, { 'if-match': product.etag });
          expect(patched.statusCode, `${what}: ${patched.body}`).toBe(200);
          product.etag = String(patched.headers.etag);
          model.write('products.updated', name);
          break;
        }
        case 'ping': {
          const hook = model.hook(hookPlan[s.hook]?.name ?? 'A');
          const pinged = await send('POST', `/v1/webhooks/${hookId(hook.name)}/test`);
          expect(pinged.statusCode, `${what}: ${pinged.body}`).toBe(hook.deleted ? 404 : 202);
          if (hook.deleted) break;
          touched.push(model.ping(hook.name, pinged.json<{ delivery_id: string }>().delivery_id, hookId(hook.name), now));
          count(`ping of ${hook.active ? 'an active' : 'an inactive'} webhook`);
          break;
        }
        case 'answer': {
          const path = hookPlan[s.hook]?.path ?? '/a';
          rx.patterns.set(path, s.answers);
          model.setPattern(path, s.answers);
          break;
        }
        case 'queue': {
          // Answers queued for a delivery still pending, to an active webhook, are used soonest.
          const known = model.deliveries.filter((d) => d.id !== undefined);
          const pending = known.filter((d) => d.status === 'pending');
          const choices = [pending.filter((d) => model.hook(d.hook).active), pending, known].find((list) => list.length > 0) ?? [];
          const delivery = choices[s.pick % Math.max(1, choices.length)];
          if (delivery?.id === undefined) break;
          rx.queue(delivery.id, s.answers);
          model.queue(delivery.id, s.answers);
          break;
        }
        case 'advance':
          now = target(s);
          if (now - mintedAt >= tokenRefreshMs) {
            token = await h.token(client, undefined, now);
            mintedAt = now;
          }
          if (s.thenRun) touched.push(...(await round()));
          break;
        case 'run':
          touched.push(...(await round()));
          break;
        case 'retry': {
          // A delivery of the webhook with the status wanted, else of any webhook, else any delivery of the webhook, else any.
          const hook = hookPlan[s.hook]?.name;
          const known = model.deliveries.filter((d) => d.id !== undefined);
          const choices =
            [known.filter((d) => d.hook === hook && d.status === s.status), known.filter((d) => d.status === s.status), known.filter((d) => d.hook === hook), known].find((list) => list.length > 0) ??
            [];
          const delivery = choices[s.pick % Math.max(1, choices.length)];
          if (delivery?.id === undefined) break;
          const deleted = model.hook(delivery.hook).deleted;
          const retried = await send('POST', `/v1/webhooks/${hookId(delivery.hook)}/deliveries/${delivery.id}/retry`);
          expect(retried.statusCode, `${what}: ${retried.body}`).toBe(deleted ? 404 : 202);
          count(deleted ? 'retry refused: webhook deleted' : `retry of a ${delivery.status} delivery`);
          if (deleted) break;
          model.retry(delivery, now);
          touched.push(delivery);
          break;
        }
        case 'activate': {
          // One not yet in the state wanted, if any.
          const live = [...model.hooks.values()].filter((candidate) => !candidate.deleted);
          const changing = live.filter((candidate) => candidate.active !== s.active);
          const hook = (changing.length > 0 ? changing : live)[s.hook % (changing.length || live.length)] ?? model.hook('A');
          const url = `/v1/webhooks/${hookId(hook.name)}`;
          const patched = await send('PATCH', url, { active: s.active }, { 'if-match': await etagOf(url) });
          expect(patched.statusCode, `${what}: ${patched.body}`).toBe(200);
          if (hook.active !== s.active) count(s.active ? 'webhook reactivated' : 'webhook deactivated');
          hook.active = s.active;
          break;
        }
        case 'delete': {
          const url = `/v1/webhooks/${hookId('D')}`;
          const deleted = await send('DELETE', url, undefined, { 'if-match': await etagOf(url) });
          expect(deleted.statusCode, `${what}: ${deleted.body}`).toBe(204);
          model.hook('D').deleted = true;
          // Its deliveries, their attempts and a retry are out of reach now.
          const pendingOfD = model.pending().find((d) => d.hook === 'D' && d.id !== undefined);
          expect((await send('GET', `${url}/deliveries`)).statusCode, `${what}: the deleted webhook's deliveries`).toBe(404);
          expect((await send('GET', `${url}/deliveries/${pendingOfD?.id}/attempts`)).statusCode, `${what}: a delivery's attempts`).toBe(404);
          expect((await send('POST', `${url}/deliveries/${pendingOfD?.id}/retry`)).statusCode, `${what}: a delivery's retry`).toBe(404);
          break;
        }
      }
      await compare(now === from ? what : `${what}, the clock moved to start + ${now - start} ms`, touched);
    }

    // The sequence must have met each case that matters, or it proves little.
    const needed = [
      'sent: 2xx',
      'sent: 3xx',
      'sent: 4xx',
      'sent: 4xx (410)',
      'sent: 5xx',
      'sent: no answer',
      'failed after the last wait',
      'a due time 1 ms ahead: not sent',
      'a retry wait reached to the ms: sent',
      'unsent: webhook inactive',
      'unsent: webhook deleted',
      'retry of a pending delivery',
      'retry of a failed delivery',
      'retry of a succeeded delivery',
      'webhook deactivated',
      'webhook reactivated',
    ];
    const met = JSON.stringify(Object.fromEntries(tally));
    // The default run meets every case, so a change to the steps cannot quietly stop judging
    // one; another seed with few steps may miss a rare one (raise DELIVERY_MODEL_STEPS).
    if (process.env['DELIVERY_MODEL_SEED'] === undefined) for (const label of needed) expect(tally.get(label) ?? 0, `${label}: never met in ${met}`).toBeGreaterThan(0);
    expect(
      rx.hits.filter((hit) => hit.path === '/trap'),
      'a redirect followed',
    ).toEqual([]);
  });
});
