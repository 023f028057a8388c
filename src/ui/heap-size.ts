import v8 from "node:v8";

/**
 * Keeps V8's heap near what the dashboard's process holds alive. Both flags are read each time V8
 * sizes a space, so setting them here, before the first frame, takes effect; the command line's
 * --max-semi-space-size could not be set from here. bench/render.ts measures them.
 *
 * Young generation: kept at its starting size (two 1 MB semispaces). A streaming dashboard
 * allocates fast (a frame's strings, a pane's rows), so V8 grows it to its 16 MB semispaces within
 * seconds and never gives the 32 MB back. Kept small, RSS at 10k deltas a pane falls by ~10 MB at
 * the same CPU and frame rate.
 *
 * Old generation: a full GC when it has grown 30 % past what survived the last one (V8's own
 * factor when it saves memory). V8's usual factor for a small heap whose GCs are quick lets it
 * grow to two to four times that: at 10k deltas a pane the dashboard held ~19 MB of live objects
 * in 31–37 MB of committed old space. With 30 % its RSS there falls from 124–126 MB to 94–98 MB,
 * and CPU and frame rate stay within the run-to-run spread (the live set is small, so each full
 * GC is short).
 */
export function keepHeapSmall(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=1");
  v8.setFlagsFromString("--heap-growing-percent=30");
}
