import { describe, expect, it } from 'vitest';
import { fromDatabase } from '../../../src/http/database-errors.js';

const withCode = (code: string, message = 'driver text with SQL') => Object.assign(new Error(message), { code });

describe('fromDatabase', () => {
  it.each([
    ['57014', 'statement timeout'],
    ['40P01', 'deadlock detected'],
    ['40001', 'serialization failure'],
    ['SQLITE_BUSY', 'database busy'],
    ['57P01', 'database shutting down'],
    ['57P03', 'database not accepting connections yet'],
    ['08006', 'database connection failure'],
    ['ECONNREFUSED', 'database connection refused'],
    ['ECONNRESET', 'database connection reset'],
  ])('turns %s into a 503 with Retry-After (%s)', (code, reason) => {
    const refused = fromDatabase(withCode(code));
    expect(refused?.status).toBe(503);
    expect(refused?.code).toBe('service_unavailable');
    expect(refused?.headers).toEqual({ 'retry-after': '1' });
    expect(refused?.privateReason).toContain(reason);
    expect(refused?.message).not.toContain('SQL');
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
  ])('turns node-postgres "%s" (no code) into a 503', (message) => {
    expect(fromDatabase(new Error(message))?.status).toBe(503);
  });

  it('looks inside an AggregateError of several refused addresses', () => {
    expect(fromDatabase(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))?.status).toBe(503);
  });

  it('leaves every other error alone: a bug stays a 500', () => {
    expect(fromDatabase(withCode('23505'))).toBeUndefined();
    expect(fromDatabase(withCode('42P01'))).toBeUndefined();
    expect(fromDatabase(new TypeError('x is undefined'))).toBeUndefined();
    expect(fromDatabase(null)).toBeUndefined();
  });
});
