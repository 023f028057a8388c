import { render } from "ink";
import React from "react";
import type { SessionInfo } from "../sessions/store.js";
import { Screen } from "./screen.js";
import { SessionPicker } from "./SessionPicker.js";

export interface PickOptions {
  /** Newest first, as listSessions returns them. */
  sessions: readonly SessionInfo[];
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Shortened to ~ in workspace paths; defaults to $HOME. */
  home?: string;
}

/**
 * `orca --resume` without an id: shows the session picker on the alternate screen and resolves
 * with the chosen session's id, or null when the user quits (Esc, Ctrl+C). The terminal is
 * restored before it resolves. SIGTERM / SIGHUP restore it and exit the process (143 / 129).
 */
export async function pickSession(opts: PickOptions): Promise<string | null> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  let chosen: string | null = null;
  let instance: ReturnType<typeof render> | undefined;
  const screen = new Screen({ stdout });
  screen.enter();
  // After a resize the terminal has reflowed Ink's last frame; wipe it once and redraw.
  const onResize = (): void => {
    instance?.clear();
    screen.clear();
  };
  stdout.on("resize", onResize);
  try {
    instance = render(
      <SessionPicker
        sessions={opts.sessions}
        home={opts.home ?? process.env.HOME}
        onDone={(id) => {
          chosen = id;
          instance?.unmount();
        }}
      />,
      { stdout, stdin, exitOnCtrlC: false, patchConsole: false },
    );
    await instance.waitUntilExit();
    return chosen;
  } finally {
    stdout.off("resize", onResize);
    screen.leave();
  }
}
