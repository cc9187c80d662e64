import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Harness, TestClient } from './harness.js';

/** One security entry of the audit trail as read back through the audit-log API. */
export type SecurityEntry = Record<string, unknown> & { readonly action: string; readonly new_values: Record<string, unknown> };

/** What a test expects of one security entry: its action and the fields it must carry. */
export interface ExpectedEntry {
  readonly action: string;
  readonly new_values: Record<string, unknown>;
  readonly record_id?: string | null;
  readonly tenant_id?: string | null;
}

/**
 * The security entries written while answering `response`, oldest first: found by the
 * request id the service answered with, read by `reader` (`audit-logs:list`) with a token
 * minted at the service's time `at`.
 */
export async function securityEntriesOf(h: Harness, reader: TestClient, response: LightMyRequestResponse, at: number): Promise<SecurityEntry[]> {
  await h.app.securityEvents.flush();
  const requestId = String(response.headers['x-request-id']);
  const listed = await h.request({ method: 'GET', url: `/v1/audit-logs/?category=security&request_id=${requestId}&sort=_id`, token: await h.token(reader, undefined, at) });
  expect(listed.statusCode, listed.body).toBe(200);
  return listed.json().items as SecurityEntry[];
}

/** Asserts that answering `response` wrote exactly `expected`, in order; `defaults` are fields every entry carries unless it says otherwise. */
export async function expectSecurityEntries(
  h: Harness,
  reader: TestClient,
  response: LightMyRequestResponse,
  expected: readonly ExpectedEntry[],
  what: string,
  at: number,
  defaults: Partial<ExpectedEntry> = {},
): Promise<void> {
  const entries = await securityEntriesOf(h, reader, response, at);
  expect(
    entries.map((e) => e.action),
    what,
  ).toEqual(expected.map((e) => e.action));
  expected.forEach((entry, n) => expect(entries[n], what).toMatchObject({ ...defaults, ...entry }));
}
