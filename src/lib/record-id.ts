import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const state = { msecs: -Infinity, seq: 0 };

// Random bytes drawn 1 KiB at a time, as Node's randomUUID does: a 16-byte draw costs about
// as much as a 1 KiB one, and every write makes several ids (record, audit entry, event).
const pool = Buffer.alloc(1024);
let used = pool.length;

/** 16 fresh random bytes, a view into the pool (read before the next call). */
function random16(): Buffer {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 16;
  return pool.subarray(used - 16, used);
}

/**
 * A UUIDv7 record id that sorts after every id this process made before, even within one
 * millisecond (RFC 9562 §6.2 method 1: a counter seeded at random each new millisecond).
 * `_id` is the tie-breaker of every sort, so creation order must survive equal timestamps.
 */
export function newRecordId(nowMs: number): string {
  const random = random16();
  if (nowMs > state.msecs) {
    state.msecs = nowMs;
    // 30 random bits leave room to count up within the millisecond.
    state.seq = random.readUInt32BE(6) >>> 2;
  } else {
    state.seq += 1;
    if (state.seq > 0xffffffff) {
      state.msecs += 1;
      state.seq = 0;
    }
  }
  return v7({ msecs: state.msecs, seq: state.seq, random });
}
