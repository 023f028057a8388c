import { useEffect, useReducer, useRef, type MutableRefObject } from "react";

/** Spinner frames advance this often (about 8 a second). */
export const FRAME_MS = 125;
/** The header's clock shows whole seconds: it is drawn anew at least this often. */
const HEADER_MS = 1000;

/**
 * The time the dashboard draws with (spinners, elapsed clocks). While `active`, it makes sure a
 * render happens at least every `intervalMs`, but only when nothing else drew the time in
 * between: `drawn` is also set by the body when it renders for a flush of the store on its own
 * (LiveDashboard), so while agents stream the flushes move the spinners and the clock adds no
 * frame of its own — it rendered the whole App 8 times a second beside ~24 flushes. The App
 * itself (its header's clock) still renders once a second. Spinners derive their frame from the
 * time, so they move at the same pace either way.
 */
export function useClock(intervalMs: number, active: boolean, drawn: MutableRefObject<number>): number {
  const [, force] = useReducer((n: number) => n + 1, 0);
  const last = useRef(0);
  const now = Date.now();
  last.current = now;
  drawn.current = now;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      const t = Date.now();
      if (t - drawn.current >= intervalMs - 5 || t - last.current >= HEADER_MS - 5) force();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active, drawn]);
  return now;
}

/** The spinner frame at `now`. */
export function frameAt(now: number): number {
  return Math.floor(now / FRAME_MS);
}
