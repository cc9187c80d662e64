/** Source of the current time in milliseconds since the epoch; inject one to test expiry. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Waits `ms` milliseconds; injectable so tests and callers can observe or shorten waits. */
export type Sleep = (ms: number) => Promise<void>;

/** The real timer. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
