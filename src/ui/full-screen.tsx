import { render } from "ink";
import type React from "react";
import { Screen } from "./screen.js";

export interface FullScreenOptions {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
}

/**
 * Shows one question (a picker, a prompt) on the alternate screen and resolves with what the
 * user chose, or null when they quit. `view` gets a `done` callback to call with the answer. The
 * terminal is restored before it resolves; SIGTERM / SIGHUP restore it and exit (143 / 129).
 */
export async function askFullScreen<T>(view: (done: (answer: T | null) => void) => React.ReactElement, opts: FullScreenOptions = {}): Promise<T | null> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  let answer: T | null = null;
  let instance: ReturnType<typeof render> | undefined;
  const screen = new Screen({ stdout });
  screen.enter();
  const releaseKeys = keysFromTheStart(stdin);
  const detachResize = clearOnResize(stdout, screen, () => instance);
  try {
    instance = render(
      view((chosen) => {
        answer = chosen;
        instance?.unmount();
      }),
      { stdout, stdin, exitOnCtrlC: false, patchConsole: false },
    );
    await instance.waitUntilExit();
    return answer;
  } finally {
    detachResize();
    releaseKeys();
    screen.leave();
  }
}

/**
 * Raw mode from the moment the screen is ours, not from Ink's first input effect: a Ctrl+C typed
 * as the first frame appears would otherwise be the terminal's SIGINT, killing orca (and the shell
 * that started it) with the alternate screen still up. In raw mode it waits in stdin as a key.
 */
export function keysFromTheStart(stdin: NodeJS.ReadStream): () => void {
  if (!stdin.isTTY || typeof stdin.setRawMode !== "function") return () => {};
  stdin.setRawMode(true);
  return () => stdin.setRawMode(false);
}

/**
 * Ink erases its previous frame line by line; after a resize the terminal has reflowed that
 * frame, so wipe the alternate screen once and let the next render draw from the top.
 */
export function clearOnResize(stdout: NodeJS.WriteStream, screen: Screen, instance: () => { clear(): void } | undefined): () => void {
  const onResize = (): void => {
    instance()?.clear();
    screen.clear();
  };
  stdout.on("resize", onResize);
  return () => stdout.off("resize", onResize);
}
