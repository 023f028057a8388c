import { useEffect, useReducer, useRef } from "react";

/** Spinner frames advance this often (about 8 a second). */
export const FRAME_MS = 125;

/**
 * The time the dashboard draws with (spinners, elapsed clocks). While `active`, it makes sure a
 * render happens at least every `intervalMs`, but only when nothing else rendered in between:
 * while agents stream, the store's flushes already redraw, and an extra timer-driven render would
 * only add a frame. Spinners derive their frame from the time, so they move at the same pace
 * either way.
 */
export function useClock(intervalMs: number, active: boolean): number {
  const [, force] = useReducer((n: number) => n + 1, 0);
  const last = useRef(0);
  const now = Date.now();
  last.current = now;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (Date.now() - last.current >= intervalMs - 5) force();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return now;
}

/** The spinner frame at `now`. */
export function frameAt(now: number): number {
  return Math.floor(now / FRAME_MS);
}
