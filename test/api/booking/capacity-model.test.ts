import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * Random sequences of creates, moves, resizes, cancels, reactivations and completions on a
 * small product, checked step by step against a brute-force model that counts the units
 * held in every hour: the API must accept exactly what the model accepts, the stored
 * bookings must never hold more than the product has, and the availability endpoints must
 * answer what the model recomputes by brute force.
 */

const hours = 12;
const hourAt = (h: number) => new Date(Date.UTC(2031, 0, 1, h)).toISOString();

type Command =
  | { kind: 'create'; start: number; length: number; quantity: number }
  | { kind: 'resize'; target: number; start: number; length: number; quantity: number }
  | { kind: 'status'; target: number; status: 'active' | 'cancelled' | 'completed' };

const window = { start: fc.integer({ min: 0, max: hours - 1 }), length: fc.integer({ min: 1, max: 4 }), quantity: fc.integer({ min: 1, max: 3 }) };
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), ...window }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resize' as const), target: fc.nat(), ...window }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('status' as const), target: fc.nat(), status: fc.constantFrom('active' as const, 'cancelled' as const, 'completed' as const) }) },
);

interface Modelled {
  id: string;
  etag: string;
  start: number;
  end: number;
  quantity: number;
  status: string;
}

const holds = (b: Modelled) => b.status !== 'cancelled';

/** Whether `candidate` fits beside every other holding booking, hour by hour. */
function fits(bookings: readonly Modelled[], candidate: Modelled, total: number): boolean {
  for (let hour = candidate.start; hour < candidate.end; hour += 1) {
    const others = bookings.filter((b) => b.id !== candidate.id && holds(b) && b.start <= hour && hour < b.end).reduce((sum, b) => sum + b.quantity, 0);
    if (others + candidate.quantity > total) return false;
  }
  return true;
}

const allowedNext: Record<string, readonly string[]> = { active: ['cancelled', 'completed'], cancelled: ['active'], completed: [] };

describe.each(dialects)('capacity against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Model'), [...crud('products'), ...crud('bookings')]);
  });
  afterAll(() => h.close());

  it('accepts exactly what fits, never exceeds total_items, and shows availability as the model counts it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(command, { minLength: 1, maxLength: 18 }), async (total, commands) => {
        const created = await h.request({ method: 'POST', url: '/v1/products/', token, body: { name: 'Model', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: total } });
        const productId = String(created.json()._id);
        const bookings: Modelled[] = [];
        for (const step of commands) {
          if (step.kind === 'create') {
            const candidate: Modelled = { id: '', etag: '', start: step.start, end: Math.min(hours, step.start + step.length), quantity: step.quantity, status: 'active' };
            const answer = await h.request({
              method: 'POST',
              url: '/v1/bookings/',
              token,
              body: { product_id: productId, start_time: hourAt(candidate.start), end_time: hourAt(candidate.end), quantity: candidate.quantity },
            });
            const expected = fits(bookings, candidate, total) ? 201 : 409;
            expect(answer.statusCode, `create ${JSON.stringify(step)}: ${answer.body}`).toBe(expected);
            if (expected === 201) bookings.push({ ...candidate, id: String(answer.json()._id), etag: String(answer.headers.etag) });
            continue;
          }
          const target = bookings[step.target % Math.max(1, bookings.length)];
          if (!target) continue;
          const next: Modelled =
            step.kind === 'resize' ? { ...target, start: step.start, end: Math.min(hours, step.start + step.length), quantity: step.quantity } : { ...target, status: step.status };
          const body = step.kind === 'resize' ? { start_time: hourAt(next.start), end_time: hourAt(next.end), quantity: next.quantity } : { status: next.status };
          const answer = await h.request({ method: 'PATCH', url: `/v1/bookings/${target.id}`, token, body, headers: { 'if-match': target.etag } });
          let expected = 200;
          if (step.kind === 'status' && next.status !== target.status && !(allowedNext[target.status] ?? []).includes(next.status)) expected = 409;
          else if (holds(next) && (!holds(target) || next.start !== target.start || next.end !== target.end || next.quantity > target.quantity) && !fits(bookings, next, total)) expected = 409;
          expect(answer.statusCode, `${JSON.stringify(step)} on ${JSON.stringify(target)}: ${answer.body}`).toBe(expected);
          if (expected === 200) Object.assign(target, next, { etag: String(answer.headers.etag) });
        }
        // Availability is a read model of the same rule: every hour's `booked` is the model's
        // count, and the search finds the product exactly when the model has room all along.
        const held = (hour: number) => bookings.filter((b) => holds(b) && b.start <= hour && hour < b.end).reduce((sum, b) => sum + b.quantity, 0);
        const slots = await h.request({ method: 'GET', url: `/v1/products/${productId}/availability?from=${hourAt(0)}&to=${hourAt(hours)}&granularity=hour`, token });
        expect(slots.statusCode, slots.body).toBe(200);
        expect(slots.json().slots.map((slot: { booked: number }) => slot.booked)).toEqual(Array.from({ length: hours }, (_, hour) => held(hour)));
        const [from, to] = [commands.length % hours, Math.min(hours, (commands.length % hours) + 3)];
        const free = total - Math.max(...Array.from({ length: to - from }, (_, k) => held(from + k)));
        const wanted = 1 + (commands.length % 3);
        const search = await h.request({ method: 'GET', url: `/v1/availability?from=${hourAt(from)}&to=${hourAt(to)}&quantity=${wanted}&_id=${productId}`, token });
        expect(search.statusCode, search.body).toBe(200);
        expect(search.json().items).toEqual(free >= wanted ? [expect.objectContaining({ _id: productId, available: free })] : []);
        const stored = await h.database.db.selectFrom('bookings').select(['start_time', 'end_time', 'quantity', 'status']).where('product_id', '=', productId).execute();
        for (let hour = 0; hour < hours; hour += 1) {
          const at = Date.parse(hourAt(hour));
          const held = stored.filter((b) => b.status !== 'cancelled' && Date.parse(String(b.start_time)) <= at && at < Date.parse(String(b.end_time))).reduce((sum, b) => sum + Number(b.quantity), 0);
          expect(held).toBeLessThanOrEqual(total);
        }
      }),
      { numRuns: 40 },
    );
  });
});
