/**
 * Launch → the moments a program's output to a real terminal (a tmux pane) first holds some texts,
 * taken from tmux's own output notifications (control mode) rather than by polling the screen:
 * polling with `capture-pane` saw a frame only at its next poll (a `tmux` and a `sleep` process
 * each round, ~15–30 ms apart on a loaded machine) and its process spawns took CPU from the program
 * being timed on a two-core machine. Here the bench sleeps on a pipe until tmux forwards the bytes.
 */
import { execFileSync, spawn } from "node:child_process";

export interface FirstTextOptions {
  /** A fresh tmux server per run: one of the same name that is still exiting fails the next. */
  socket: string;
  cwd: string;
  /** What the pane runs (a shell command line). */
  command: string;
  /** The texts to wait for, as the program writes them (no escape sequences inside one). */
  texts: readonly string[];
  columns?: number;
  rows?: number;
  timeoutMs?: number;
}

/** tmux control mode writes a pane's output with `\ooo` for octal-escaped bytes and `\\` for `\`. */
export function decodeControlOutput(data: string): string {
  return data.replace(/\\(\\|[0-7]{3})/g, (_, code: string) => (code === "\\" ? "\\" : String.fromCharCode(parseInt(code, 8))));
}

/** tmux's command syntax: the whole command line as one single-quoted argument. */
function quoted(command: string): string {
  if (command.includes("'")) throw new Error(`tmux-first-text: a single quote in ${command}`);
  return `'${command}'`;
}

/** Milliseconds from sending tmux the command that starts `command` to tmux reading each of `texts` from it. */
export async function timeToTexts(o: FirstTextOptions): Promise<number[]> {
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", o.socket, ...args], { encoding: "utf8" });
  // The window exists before the clock starts, so only the program's own start is timed.
  tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", String(o.columns ?? 120), "-y", String(o.rows ?? 40), "-c", o.cwd, "sleep 60");
  const client = spawn("tmux", ["-L", o.socket, "-C", "attach", "-t", "bench"], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    return await new Promise<number[]>((resolve, reject) => {
      let started = 0;
      let pending = "";
      let seen = "";
      const at: (number | undefined)[] = o.texts.map(() => undefined);
      const longest = Math.max(...o.texts.map((t) => t.length));
      const timer = setTimeout(() => reject(new Error(`not all of ${JSON.stringify(o.texts)} within ${o.timeoutMs ?? 30_000} ms of: ${o.command}`)), o.timeoutMs ?? 30_000);
      client.on("error", reject);
      client.on("exit", () => reject(new Error("the tmux control client ended before the text showed")));
      client.stdout.setEncoding("latin1");
      client.stdout.on("data", (chunk: string) => {
        const now = performance.now();
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          // The attach's own reply: the client is ready, start the clock and the program.
          if (!started && line.startsWith("%session-changed")) {
            started = performance.now();
            client.stdin.write(`respawn-pane -k -t bench ${quoted(o.command)}\n`);
            continue;
          }
          const output = /^%output %\d+ (.*)$/.exec(line.replace(/\r$/, ""));
          if (!started || !output) continue;
          // Kept to the last stretch only: a text may straddle two notifications.
          seen = (seen + decodeControlOutput(output[1]!)).slice(-(longest + 65_536));
          o.texts.forEach((text, i) => (at[i] ??= seen.includes(text) ? now - started : undefined));
          if (at.every((t) => t !== undefined)) {
            clearTimeout(timer);
            resolve(at as number[]);
            return;
          }
        }
      });
    });
  } finally {
    client.kill();
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
