import { useEffect, useState } from 'preact/hooks';

/**
 * The current time (ms), read again every second while `ticking`: the countdowns of holds.
 * Not ticking, the time of the render.
 */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return ticking ? now : Date.now();
}
