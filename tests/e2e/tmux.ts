import { execFileSync } from "node:child_process";

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

  /** Polls the screen until `test` holds; fails with the last screen after `timeoutMs`. */
  async waitFor(what: string, test: (screen: string) => boolean, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      try {
        screen = this.screen();
      } catch {
        screen = "";
      }
      if (test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
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
