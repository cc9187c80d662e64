/** Time source; tests inject a fixed or stepping clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Seconds since the epoch (JWT `iat`/`exp` units). */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
