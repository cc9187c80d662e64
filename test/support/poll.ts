/**
 * Polls `read` until `accept` holds for what it returns, and returns that value; fails
 * naming `what` (and the last value) after `timeoutMs`. For effects that land after an
 * answer (a message sent, a job's run): the test waits for the state, never for a fixed
 * time, so a busy machine makes it slower but not red.
 */
export async function eventually<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
