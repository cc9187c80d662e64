import { describe, expect, it } from 'vitest';
import { newRecordId } from '../../../src/lib/record-id.js';

describe('record ids', () => {
  it('are UUIDv7 and strictly increasing within one millisecond and across a clock step back', () => {
    const ids = [newRecordId(1_800_000_000_000), ...Array.from({ length: 1000 }, () => newRecordId(1_800_000_000_000)), newRecordId(1_799_999_999_000), newRecordId(1_800_000_000_001)];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw fresh random bits for every id, across refills of the random pool', () => {
    // 5,000 ids, one per millisecond: each seeds its counter and its last 48 bits from new random bytes.
    const ids = Array.from({ length: 5000 }, (_, i) => newRecordId(1_900_000_000_000 + i));
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(15, 18) + id.slice(20, 23))).size).toBeGreaterThan(4900);
  });
});
