import { readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every mainstream Linux build.
const ticksPerSecond = 100;

/**
 * CPU seconds (user + system, all threads) the processes used so far; null off Linux.
 * Divided by the requests served it gives CPU time per request, a figure that stays
 * meaningful when other load on the machine lowers req/s.
 */
export function cpuSeconds(pids: readonly number[]): number | null {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return null;
    }
  }
  return ticks / ticksPerSecond;
}
