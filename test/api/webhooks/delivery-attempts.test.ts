import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAuditActionFailure } from '../../support/audit-action-failure.js';
import type { AuditActionFailure } from '../../support/audit-action-failure.js';
import { abandonedAttemptError } from '../../../src/webhooks/dispatcher.js';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/**
 * A receiver answering each path's queued statuses in turn (then 204), counting the
 * requests per path. A held path keeps its requests waiting until `release(path)`.
 */
async function receiver() {
  const answers: Record<string, number[]> = {};
  const hits: Record<string, number> = {};
  /** Per held path: the answers waiting to be sent, and who waits for the first request. */
  const held = new Map<string, { readonly answers: (() => void)[]; readonly arrived: () => void }>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    hits[path] = (hits[path] ?? 0) + 1;
    request.resume();
    request.on('end', () => {
      const answer = () => response.writeHead(answers[path]?.shift() ?? 204).end(`answer to ${path}`);
      const holding = held.get(path);
      if (!holding) return answer();
      holding.answers.push(answer);
      holding.arrived();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    answers,
    hits,
    /** Holds the requests to `path` from now on; resolves when the first one is there. */
    hold: (path: string) => new Promise<void>((arrived) => held.set(path, { answers: [], arrived })),
    release(path: string) {
      const holding = held.get(path);
      held.delete(path);
      for (const answer of holding?.answers ?? []) answer();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const caps = ['webhooks:create', 'webhooks:read', 'webhooks:retry', 'webhooks:test'];

interface Attempt {
  _id: string;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  started_at: string;
  finished_at: string;
  duration_ms: number;
}

/**
 * Issue 27 §3: every delivery attempt is a row of its own (as Svix keeps them), listed at
 * `/v1/webhooks/{id}/deliveries/{delivery_id}/attempts` within the tenant; retry and ping
 * are audited in the transaction of the delivery row they change or create.
 */
describe.each(dialects)('webhook delivery attempts, retry and test on %s', (dialect) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let failure: AuditActionFailure;
  let token: string;
  let otherToken: string;

  beforeAll(async () => {
    rx = await receiver();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0,0', WEBHOOK_TIMEOUT_MS: '2000' } });
    token = await h.bearer(await h.tenant('Attempts'), caps);
    otherToken = await h.bearer(await h.tenant('Other attempts'), caps);
    failure = await installAuditActionFailure(h.database);
  });
  afterAll(async () => {
    await h.close();
    await rx.close();
  });

  async function subscribe(path: string, bearer = token): Promise<string> {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: bearer, body: { url: rx.url(path), events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    return String(created.json()._id);
  }
  const ping = async (hookId: string, bearer = token) => {
    const answer = await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/test`, token: bearer });
    expect(answer.statusCode, answer.body).toBe(202);
    return String(answer.json().delivery_id);
  };
  const deliveryRow = (id: string) => h.database.db.selectFrom('webhook_deliveries').selectAll().where('_id', '=', id).executeTakeFirst();
  const auditOf = (hookId: string, action: string) =>
    h.database.db.selectFrom('audit_logs').select(['actor_type', 'category', 'new_values', 'tenant_id']).where('record_id', '=', hookId).where('action', '=', action).execute();
  const attemptsUrl = (hookId: string, deliveryId: string, query = '') => `/v1/webhooks/${hookId}/deliveries/${deliveryId}/attempts${query}`;

  it('keeps one row per attempt (3 attempts: 500, 503, 204), lists them oldest first and keeps the delivery summary', async () => {
    const hookId = await subscribe('/flaky');
    rx.answers['/flaky'] = [500, 503];
    const deliveryId = await ping(hookId);
    for (let i = 0; i < 3; i++) await h.app.dispatcher.runOnce();

    const listed = await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token });
    expect(listed.statusCode, listed.body).toBe(200);
    const page = listed.json() as { items: Attempt[]; total: number; page: number; per_page: number };
    expect(page).toMatchObject({ total: 3, page: 1, per_page: 25 });
    expect(listed.headers['x-total-count']).toBe('3');
    expect(page.items.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 503],
      [3, 204],
    ]);
    expect(page.items[0]?.error).toBe('HTTP 500: answer to /flaky');
    expect(page.items[2]?.error).toBeNull();
    for (const attempt of page.items) {
      expect(attempt).toMatchObject({ delivery_id: deliveryId, webhook_id: hookId });
      expect(Date.parse(attempt.finished_at)).toBeGreaterThanOrEqual(Date.parse(attempt.started_at));
      expect(attempt.duration_ms).toBe(Date.parse(attempt.finished_at) - Date.parse(attempt.started_at));
    }
    // The delivery keeps its summary of the last attempt.
    const deliveries = (await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries`, token })).json() as { items: Record<string, unknown>[] };
    expect(deliveries.items[0]).toMatchObject({ _id: deliveryId, status: 'succeeded', attempts: 3, last_status_code: 204, last_error: null });
    // The list query language applies.
    const filtered = await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId, '?status_code=503&fields=attempt,status_code'), token });
    expect(filtered.json().items).toEqual([{ _id: expect.any(String), attempt: 2, status_code: 503 }]);
    expect((await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId, '?sort=-attempt&per_page=1'), token })).json().items[0].attempt).toBe(3);
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId, '?sort=error'), token }), 400, 'validation_failed');
  });

  it('scopes the attempts to the tenant: another tenant, another webhook or an unknown delivery is a 404', async () => {
    const hookId = await subscribe('/mine');
    const deliveryId = await ping(hookId);
    await h.app.dispatcher.runOnce();
    expect((await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token })).json().total).toBe(1);
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token: otherToken }), 404, 'not_found');
    // The other tenant's own webhook does not reach this delivery either.
    const theirs = await subscribe('/theirs', otherToken);
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(theirs, deliveryId), token: otherToken }), 404, 'not_found');
    // Nor does another webhook of the same tenant.
    const sibling = await subscribe('/sibling');
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(sibling, deliveryId), token }), 404, 'not_found');
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(hookId, 'msg_unknown'), token }), 404, 'not_found');
    const reader = await h.bearer(null, ['webhooks:create']);
    expectProblem(await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token: reader }), 403, 'insufficient_scope');
  });

  it('audits test and retry in the transaction of the delivery row: a failed entry leaves no ping and no retry; a success exactly one entry', async () => {
    const hookId = await subscribe('/audited');
    const deliveries = async () => (await h.database.db.selectFrom('webhook_deliveries').select('_id').where('webhook_id', '=', hookId).execute()).length;

    await failure.during('test', async () => expectProblem(await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/test`, token }), 500, 'internal_error'));
    expect(await deliveries()).toBe(0);
    expect(await auditOf(hookId, 'test')).toEqual([]);
    rx.answers['/audited'] = [500, 500, 500];
    const deliveryId = await ping(hookId);
    expect(await deliveries()).toBe(1);
    const [tested] = await auditOf(hookId, 'test');
    expect(tested).toMatchObject({ actor_type: 'client', category: 'data' });
    expect(h.database.dialect.fromDb('object', tested?.new_values)).toEqual({ delivery_id: deliveryId });
    for (let i = 0; i < 3; i++) await h.app.dispatcher.runOnce();
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'failed', attempts: 3 });

    const retry = () => h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/deliveries/${deliveryId}/retry`, token });
    await failure.during('retry', async () => expectProblem(await retry(), 500, 'internal_error'));
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(await auditOf(hookId, 'retry')).toEqual([]);
    expect((await retry()).statusCode).toBe(202);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'pending' });
    const retried = await auditOf(hookId, 'retry');
    expect(retried).toHaveLength(1);
    expect(h.database.dialect.fromDb('object', retried[0]?.new_values)).toEqual({ delivery_id: deliveryId });
    // Another tenant can neither retry nor ping it (and nothing is audited).
    expectProblem(await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/deliveries/${deliveryId}/retry`, token: otherToken }), 404, 'not_found');
    expectProblem(await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/test`, token: otherToken }), 404, 'not_found');
    // An unknown delivery of a webhook in reach: the 404 names what is missing.
    const unknown = '01890000-0000-7000-8000-000000000000';
    const missing = await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/deliveries/${unknown}/retry`, token });
    expectProblem(missing, 404, 'not_found');
    expect(missing.json().detail).toBe('No such webhook-deliveries record');
    expect((await h.request({ method: 'GET', url: attemptsUrl(hookId, unknown), token })).json().detail).toBe('No such webhook-deliveries record');
    expect(await auditOf(hookId, 'retry')).toHaveLength(1);
    expect(await auditOf(hookId, 'test')).toHaveLength(1);
    await h.app.dispatcher.runOnce();
    const attempts = (await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token })).json() as { items: Attempt[] };
    expect(attempts.items.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 204],
    ]);
  });

  /** Leaves a delivery as an instance that died mid-attempt does: claimed `claimedAgoMs` ago, its lease lapsed. */
  async function abandon(deliveryId: string, claimedAgoMs: number, attempts: number): Promise<string> {
    const { dialect: codec } = h.database;
    const claimedAt = new Date(Date.now() - claimedAgoMs).toISOString();
    await h.database.db
      .updateTable('webhook_deliveries')
      .set({ attempts, claimed_at: codec.toDb('timestamp', claimedAt), next_attempt_at: codec.toDb('timestamp', new Date(Date.now() - 1000).toISOString()) })
      .where('_id', '=', deliveryId)
      .execute();
    return claimedAt;
  }

  it('records an attempt whose instance stopped before recording an answer as abandoned, then sends the next one at once', async () => {
    const hookId = await subscribe('/abandoned');
    const deliveryId = await ping(hookId);
    const claimedAt = await abandon(deliveryId, 10_000, 0);
    await h.app.dispatcher.runOnce();

    const attempts = (await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token })).json() as { items: Attempt[] };
    expect(attempts.items.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, null, abandonedAttemptError],
      [2, 204, null],
    ]);
    // The abandoned attempt ran from its claim until the takeover.
    expect(attempts.items[0]?.started_at).toBe(claimedAt);
    expect(Date.parse(attempts.items[0]?.finished_at ?? '')).toBeGreaterThan(Date.parse(claimedAt));
    expect(rx.hits['/abandoned']).toBe(1);
    const deliveries = (await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries`, token })).json() as { items: Record<string, unknown>[] };
    expect(deliveries.items[0]).toMatchObject({ _id: deliveryId, status: 'succeeded', attempts: 2, last_status_code: 204, last_error: null });
    expect(deliveries.items[0]).not.toHaveProperty('claimed_at');
    expect((await deliveryRow(deliveryId))?.claimed_at).toBeNull();
  });

  it('counts an abandoned attempt towards the retry schedule: when it was the last one allowed, the delivery fails unsent', async () => {
    const hookId = await subscribe('/abandoned-last');
    const deliveryId = await ping(hookId);
    // WEBHOOK_RETRY_SCHEDULE '0,0': three attempts; two were recorded, the third abandoned.
    await abandon(deliveryId, 5_000, 2);
    await h.app.dispatcher.runOnce();

    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'failed', attempts: 3, last_status_code: null, last_error: abandonedAttemptError, next_attempt_at: null, claimed_at: null });
    expect(rx.hits['/abandoned-last']).toBeUndefined();
    const rows = await h.database.db.selectFrom('webhook_delivery_attempts').select(['attempt', 'status_code', 'error']).where('delivery_id', '=', deliveryId).execute();
    expect(rows).toEqual([{ attempt: 3, status_code: null, error: abandonedAttemptError }]);
    // Nothing more is due: another round sends nothing.
    await h.app.dispatcher.runOnce();
    expect(rx.hits['/abandoned-last']).toBeUndefined();
  });

  /** A ping to a new webhook at `path`, its first attempt claimed and held at the receiver; `running` ends with it. */
  async function heldAttempt(path: string) {
    const hookId = await subscribe(path);
    const deliveryId = await ping(hookId);
    const arrived = rx.hold(path);
    const running = h.app.dispatcher.runOnce();
    await arrived;
    return { hookId, deliveryId, running };
  }

  it('records nothing for an attempt whose delivery another instance took over meanwhile (its claim is no longer the one stamped)', async () => {
    const { deliveryId, running } = await heldAttempt('/overtaken');
    // What a second instance's claim writes once this one's lease has lapsed.
    const takeover = h.database.dialect.toDb('timestamp', new Date(Date.now() + 60_000).toISOString());
    await h.database.db.updateTable('webhook_deliveries').set({ claimed_at: takeover }).where('_id', '=', deliveryId).execute();
    rx.release('/overtaken');
    await running;

    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'pending', attempts: 0, last_status_code: null });
    expect(h.database.dialect.fromDb('timestamp', (await deliveryRow(deliveryId))?.claimed_at)).toBe(h.database.dialect.fromDb('timestamp', takeover));
    expect(await h.database.db.selectFrom('webhook_delivery_attempts').select('_id').where('delivery_id', '=', deliveryId).execute()).toEqual([]);
  });

  it('a retry asked for while an attempt is under way leaves it be: one send, one attempt, no abandoned row', async () => {
    const { hookId, deliveryId, running: first } = await heldAttempt('/retried-live');
    const retried = await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/deliveries/${deliveryId}/retry`, token });
    expect(retried.statusCode, retried.body).toBe(202);
    expect(await auditOf(hookId, 'retry')).toHaveLength(1);
    // What the next poll would claim while the first attempt still waits for its answer: not this delivery.
    const now = h.database.dialect.toDb('timestamp', new Date().toISOString());
    const due = await h.database.db.selectFrom('webhook_deliveries').select('_id').where('_id', '=', deliveryId).where('status', '=', 'pending').where('next_attempt_at', '<=', now).execute();
    expect(due).toEqual([]);
    rx.release('/retried-live');
    await first;
    await h.app.dispatcher.runOnce();
    expect(rx.hits['/retried-live']).toBe(1);

    const attempts = (await h.request({ method: 'GET', url: attemptsUrl(hookId, deliveryId), token })).json() as { items: Attempt[] };
    expect(attempts.items.map((a) => [a.attempt, a.status_code])).toEqual([[1, 204]]);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1, claimed_at: null });
  });

  it("records an attempt's row, its delivery summary and a 410's disabling together: when the disabling's audit fails, none of them lands", async () => {
    const hookId = await subscribe('/gone');
    rx.answers['/gone'] = [410, 410];
    const deliveryId = await ping(hookId);
    await failure.during('update', () => h.app.dispatcher.runOnce());
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await h.database.db.selectFrom('webhook_delivery_attempts').select('_id').where('delivery_id', '=', deliveryId).execute()).toEqual([]);
    expect((await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}`, token })).json().active).toBe(true);
  });
});
