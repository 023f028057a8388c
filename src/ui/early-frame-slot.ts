import type { DashboardTerminal } from "./dashboard-terminal.js";

/**
 * Where the first frame (early-frame.tsx) waits for the dashboard to take it over. Apart from it
 * and importing nothing, so the CLI can let a frame go (dismissEarlyFrame) without loading Ink.
 */
export interface EarlyFrame {
  readonly stdout: NodeJS.WriteStream;
  readonly terminal: DashboardTerminal;
  /** Stops keeping the frame up (its redraw on a resize): the dashboard draws from here. */
  release(): void;
}

let held: EarlyFrame | undefined;

export function holdEarlyFrame(frame: EarlyFrame): void {
  held = frame;
}

/** The first frame drawn on `stdout`, for the dashboard to draw on; each is taken once. */
export function takeEarlyFrame(stdout: NodeJS.WriteStream): EarlyFrame | undefined {
  if (held?.stdout !== stdout) return undefined;
  const frame = held;
  held = undefined;
  frame.release();
  return frame;
}

/**
 * orca ends without the dashboard (a usage error, a start that failed): the frame goes and the
 * terminal is given back before anything is printed, so the message is on the normal screen.
 */
export function dismissEarlyFrame(): void {
  const frame = held;
  held = undefined;
  frame?.release();
  frame?.terminal.close();
}
