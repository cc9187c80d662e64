import { randomBytes } from 'node:crypto';
import { v7 } from 'uuid';

const state = { msecs: -Infinity, seq: 0 };

/**
 * A UUIDv7 record id that sorts after every id this process made before, even within one
 * millisecond (RFC 9562 §6.2 method 1: a counter seeded at random each new millisecond).
 * `_id` is the tie-breaker of every sort, so creation order must survive equal timestamps.
 */
export function newRecordId(nowMs: number): string {
  const random = randomBytes(16);
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
