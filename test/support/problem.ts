import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Text that must never reach a client: stack frames, SQL, dependency or checkout paths. */
const leaks: readonly RegExp[] = [
  // A stack frame, raw or JSON-escaped: "\n    at fn (file.js:1:2)".
  /(?:\\n|\n)\s*at /,
  /\(\S+:\d+:\d+\)/,
  /\bselect\b.+\bfrom\b/i,
  /SELECT/,
  /node_modules/,
  /\/work\//,
];

/** Asserts that a response body carries no stack trace, SQL or internal path. */
export function expectNoLeak(response: LightMyRequestResponse): void {
  for (const pattern of leaks) expect(response.body, `response leaks ${pattern}`).not.toMatch(pattern);
}

/** One entry of a validation problem's `errors` array. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/** The members every problem document carries. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly code: string;
  readonly errors?: readonly FieldProblem[];
  readonly [extension: string]: unknown;
}

/**
 * Asserts an RFC 9457 problem response with `status` and `code`: the media type, every
 * required member, and no leaked internals. Returns the parsed document.
 */
export function expectProblem(response: LightMyRequestResponse, status: number, code: string): Problem {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = response.json() as Problem;
  expect(problem).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String), instance: expect.any(String) });
  expectNoLeak(response);
  return problem;
}

/** The `field` names of a validation problem's `errors`. */
export function errorFields(problem: Problem): string[] {
  return (problem.errors ?? []).map((error) => error.field);
}
