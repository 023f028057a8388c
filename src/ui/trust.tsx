import { render } from "ink";
import React from "react";
import { Screen } from "./screen.js";
import { TrustPrompt, type TrustAnswer, type TrustItem } from "./TrustPrompt.js";

export type { TrustAnswer, TrustItem };

export interface AskTrustOptions {
  workspace: string;
  settings: readonly TrustItem[];
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Shortened to ~ in the folder's path; defaults to $HOME. */
  home?: string;
}

/**
 * Shows the trust prompt on the alternate screen and resolves with the answer, or null when the
 * user quits (Esc, Ctrl+C). The terminal is restored before it resolves. SIGTERM / SIGHUP
 * restore it and exit the process (143 / 129). Remembering the answer is the caller's job.
 */
export async function askTrust(opts: AskTrustOptions): Promise<TrustAnswer | null> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  let answer: TrustAnswer | null = null;
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
      <TrustPrompt
        workspace={opts.workspace}
        settings={opts.settings}
        home={opts.home ?? process.env.HOME}
        onDone={(chosen) => {
          answer = chosen;
          instance?.unmount();
        }}
      />,
      { stdout, stdin, exitOnCtrlC: false, patchConsole: false },
    );
    await instance.waitUntilExit();
    return answer;
  } finally {
    stdout.off("resize", onResize);
    screen.leave();
  }
}
