import { clearOnResize, keysFromTheStart } from "./full-screen.js";
import { diffingStdout } from "./frame-diff.js";
import { Screen, signalExitCode, type Signal } from "./screen.js";

/**
 * The terminal as the dashboard holds it: the alternate screen, raw mode, a clear on resize and
 * the stream Ink draws its frames on. Opened once per dashboard — by the dashboard itself, or
 * earlier by the first frame drawn before the rest of orca loads (early-frame.tsx), which hands
 * it over as it is: same screen, the frame on it known to the diff, keys typed meanwhile still
 * waiting in stdin.
 */
export interface DashboardTerminal {
  /** What Ink writes its frames to: only what changed reaches the terminal (frame-diff.ts), unless full redraws were asked for. */
  readonly stream: NodeJS.WriteStream;
  /** What a SIGTERM / SIGHUP does once the terminal is restored; unset, orca exits (143 / 129). */
  onSignal?: (signal: Signal) => void;
  /** The Ink instance drawing on `stream`, for the clear after a resize. */
  ink?: { clear(): void };
  /** The screen was cleared: the next frame on `stream` is written whole. */
  resetFrame(): void;
  /** Gives the terminal back as it was; safe to call more than once. */
  close(): void;
}

export function openDashboardTerminal(stdout: NodeJS.WriteStream, stdin: NodeJS.ReadStream, opts: { fullRedraw?: boolean } = {}): DashboardTerminal {
  let closed = false;
  const screen = new Screen({
    stdout,
    onSignal: (signal) => {
      if (terminal.onSignal) terminal.onSignal(signal);
      else process.exit(signalExitCode(signal));
    },
  });
  screen.enter();
  const releaseKeys = keysFromTheStart(stdin);
  const detachResize = clearOnResize(stdout, screen, () => terminal.ink);
  // Each frame writes only what changed (frame-diff.ts); full redraws are a benchmark's baseline.
  const output = opts.fullRedraw ? { stream: stdout, reset: () => {}, dispose: () => {} } : diffingStdout(stdout);
  const terminal: DashboardTerminal = {
    stream: output.stream,
    resetFrame: output.reset,
    close() {
      if (closed) return;
      closed = true;
      output.dispose();
      detachResize();
      releaseKeys();
      screen.leave();
    },
  };
  return terminal;
}
