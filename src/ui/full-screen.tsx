import { render } from "ink";
import type React from "react";
import { Screen } from "./screen.js";

export interface FullScreenOptions {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /**
   * The dashboard comes next on an answer: the terminal stays in raw mode for it, and what was typed
   * after the answer waits in stdin, first in line. Without it the keys typed meanwhile would be
   * the terminal's — echoed, held until Enter, a Ctrl+C a SIGINT — until the dashboard took raw mode back.
   */
  handOver?: boolean;
}

/** The question's answer, and what came in the same read after the key that answered (keys typed on). */
export type Done<T> = (answer: T | null, typedAfter?: string) => void;

/**
 * Shows one question (a picker, a prompt) on the alternate screen and resolves with what the
 * user chose, or null when they quit. `view` gets a `done` callback to call with the answer. The
 * terminal is restored before it resolves (bar raw mode on a handed-over answer); SIGTERM / SIGHUP
 * restore it and exit (143 / 129).
 */
export async function askFullScreen<T>(view: (done: Done<T>) => React.ReactElement, opts: FullScreenOptions = {}): Promise<T | null> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  let answer: T | null = null;
  let typedAfter = "";
  let instance: ReturnType<typeof render> | undefined;
  const screen = new Screen({ stdout });
  screen.enter();
  const releaseKeys = keysFromTheStart(stdin);
  const handedOver = (): boolean => Boolean(opts.handOver) && answer !== null && stdin.isTTY && typeof stdin.setRawMode === "function";
  const detachResize = clearOnResize(stdout, screen, () => instance);
  try {
    instance = render(
      view((chosen, after = "") => {
        answer = chosen;
        typedAfter = after;
        instance?.unmount();
        // Ink's unmount has just left raw mode (synchronously): take it back before any key can come in cooked.
        if (handedOver()) stdin.setRawMode(true);
      }),
      { stdout, stdin, exitOnCtrlC: false, patchConsole: false },
    );
    await instance.waitUntilExit();
    // Read before the answer but typed after it: first in line for the dashboard's first read.
    if (handedOver() && typedAfter) stdin.unshift(typedAfter);
    return answer;
  } finally {
    detachResize();
    if (!handedOver()) releaseKeys();
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
