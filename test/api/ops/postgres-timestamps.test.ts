import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestamptzToIso } from '../../../src/db/postgres.js';
import { freshPostgresUrl } from '../../support/databases.js';

// Instants across the range the API stores, with and without milliseconds.
const instants = [
  '2026-03-01T09:30:00.000Z',
  '2026-11-22T23:59:59.999Z',
  '1999-12-31T23:00:00.120Z',
  '2024-02-29T00:00:00.001Z',
  '1000-01-01T12:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
];
// Session time zones PostgreSQL renders with whole-hour, half-hour, negative and second-level
// (historical local mean time) offsets.
const zones = ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham', 'Europe/Amsterdam', 'America/Los_Angeles'];

describe('timestamptz text from PostgreSQL read back as the API’s ISO instant', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: await freshPostgresUrl() });
    await client.connect();
  });
  afterAll(() => client.end());

  it.each(zones)('in session time zone %s, every instant comes back unchanged', async (zone) => {
    await client.query(`set timezone = '${zone}'`);
    for (const instant of [...instants, '1890-06-01T10:00:00.000Z']) {
      const { rows } = await client.query<{ text: string }>('select $1::timestamptz::text as text', [instant]);
      const text = rows[0]?.text ?? '';
      expect(timestamptzToIso(text), `${instant} rendered as ${text}`).toBe(instant);
    }
  });

  it('keeps millisecond precision the way Date does (truncates microseconds)', () => {
    expect(timestamptzToIso('2026-03-01 09:30:00.123456+00')).toBe('2026-03-01T09:30:00.123Z');
    expect(timestamptzToIso('2026-03-01 09:30:00.5+00')).toBe('2026-03-01T09:30:00.500Z');
    expect(timestamptzToIso('2026-03-01 09:30:00+05:30')).toBe('2026-03-01T04:00:00.000Z');
  });

  it('hands forms it does not read itself to Date', () => {
    expect(() => timestamptzToIso('infinity')).toThrow(RangeError);
    expect(timestamptzToIso('0999-01-01 00:00:00+00')).toBe(new Date('0999-01-01 00:00:00+00').toISOString());
  });
});
