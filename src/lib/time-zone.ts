/**
 * IANA time zones through the runtime's own tz database (`Intl`), so the service needs no
 * date library and follows the Node release's zone data. Wall-clock times are carried as
 * epoch milliseconds of the same reading in UTC ("wall ms"): plain arithmetic then works
 * on local dates and hours, and {@link instantOf} maps a reading back to a real instant.
 */

const dayMs = 24 * 60 * 60 * 1000;

/** One formatter per zone: building one costs far more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, format);
  }
  return format;
}

/**
 * Whether `name` is an IANA zone name the runtime knows (`Europe/Berlin`, `UTC`, links
 * such as `US/Eastern`). Offsets (`+01:00`) and case variants of a known name
 * (`europe/berlin`) are refused, so what is stored is spelt as the tz database spells it.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
}

/** `M/D/YYYY, HH:MM:SS`, as the `en-US` formatter above writes it. */
const reading = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/**
 * The local wall-clock reading in `zone` at `instant`, as wall ms. Parsed from `format`
 * rather than `formatToParts`, which takes several times as long (slots call this per day).
 */
export function wallClock(zone: string, instant: number): number {
  const match = reading.exec(formatter(zone).format(instant));
  if (!match) throw new Error(`unexpected date format for ${zone}`);
  const [month, day, year, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, mod(instant, 1000));
  return date.getTime();
}

/**
 * The earliest instant whose reading in `zone` is `wall`; for a reading the zone skips (a
 * daylight-saving gap), the first instant after it: the transition, found by bisection
 * between the last candidate before and the first after. Both offsets around `wall` are
 * tried, so a day that starts in a repeated hour starts at its first occurrence.
 */
export function instantOf(zone: string, wall: number): number {
  let exact = Infinity;
  let after = Infinity;
  let before = -Infinity;
  for (const probe of [wall - dayMs, wall, wall + dayMs]) {
    const candidate = wall - (wallClock(zone, probe) - probe);
    const reading = wallClock(zone, candidate);
    if (reading === wall) exact = Math.min(exact, candidate);
    else if (reading > wall) after = Math.min(after, candidate);
    else before = Math.max(before, candidate);
  }
  if (exact !== Infinity) return exact;
  if (before === -Infinity || after === Infinity) return after;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (wallClock(zone, middle) >= wall) after = middle;
    else before = middle;
  }
  return after;
}

/** `value` modulo `divisor`, never negative. */
export function mod(value: number, divisor: number): number {
  return ((value % divisor) + divisor) % divisor;
}
