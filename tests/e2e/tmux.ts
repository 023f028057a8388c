import { execFileSync } from "node:child_process";
import { expect } from "vitest";

/**
 * One private tmux server (its own -L socket, no user config) with one window of a fixed size,
 * driven the way a user would: send keys, read the screen with capture-pane.
 */
export class TmuxTerminal {
  readonly socket: string;
  private started = false;

  constructor(name: string) {
    this.socket = `orca-e2e-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Starts `command` through the shell in a detached window of `columns`×`rows`. */
  start(command: string, columns: number, rows: number, cwd: string): void {
    this.tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", String(columns), "-y", String(rows), "-c", cwd, command);
    this.started = true;
  }

  screen(): string {
    return this.tmux("capture-pane", "-p", "-t", "e2e");
  }

  lines(): string[] {
    return this.screen().split("\n");
  }

  /** A tmux format of the pane, e.g. `#{alternate_on}`. */
  display(format: string): string {
    return this.tmux("display-message", "-p", "-t", "e2e", format).trim();
  }

  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", "e2e", ...keys);
  }

  resize(columns: number, rows: number): void {
    this.tmux("resize-window", "-t", "e2e", "-x", String(columns), "-y", String(rows));
  }

  /**
   * Polls the screen until `test` holds — returns true, or returns nothing without throwing (so a
   * test's `expect`s can be the condition) — on two captures in a row that are the same, and
   * returns that screen. Fails with the last screen (and the last failed `expect`) after `timeoutMs`.
   *
   * The second capture is taken at once: a capture can land mid-frame (tmux has read only part of
   * orca's write of a frame), and the rest usually arrives before it. Usually, not surely (a writer
   * starved of CPU can stall longer): the sure defence is a predicate that holds what the test asserts.
   */
  async waitFor(what: string, test: (screen: string) => boolean | void, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    let held: string | undefined;
    let failure = "";
    while (Date.now() < deadline) {
      try {
        screen = this.screen();
      } catch {
        screen = "";
      }
      if (holds(what, test, screen, (message) => (failure = message))) {
        if (screen === held) return screen;
        held = screen;
        // Not a pause: the in-process scripted server gets its turn before the next capture.
        await new Promise((r) => setImmediate(r));
        continue;
      }
      held = undefined;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}${failure ? ` (${failure})` : ""}; the screen was:\n${screen}`);
  }

  kill(): void {
    if (!this.started) return;
    this.started = false;
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}

/**
 * Whether `test` holds on `screen`: true, or nothing returned and nothing thrown; `failed` hears why
 * not. A predicate that returned nothing and asserted nothing (a block body that forgot its
 * `return`) would hold on any screen: that is the test's mistake, and it is thrown.
 */
function holds(what: string, test: (screen: string) => boolean | void, screen: string, failed: (message: string) => void): boolean {
  const asserted = expect.getState().assertionCalls;
  let result: boolean | void;
  try {
    result = test(screen);
  } catch (error) {
    failed(error instanceof Error ? error.message : String(error));
    return false;
  }
  if (result === undefined && expect.getState().assertionCalls === asserted) {
    throw new Error(`waiting for ${what}: the predicate returned nothing and asserted nothing`);
  }
  if (result === false) failed("");
  return result !== false;
}
