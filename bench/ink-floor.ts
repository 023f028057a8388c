/**
 * The floor under bench/render.ts: the least an Ink app pays to show the same load — a title row
 * and 8 bordered panes in two rows of four (40×23 at 160×48), each showing the last lines of its
 * stream as plain text, redrawn 20 times a second (the target's rate) with every delta since the
 * last frame. No markdown, no wrapping of our own, no scrollback, no input box, no frame diff:
 * React, Ink's layout (yoga) and Ink's output, with the Ink orca runs (its patches included). What
 * it costs is what any Ink dashboard pays for this load, whatever it draws.
 */
import { createElement as h } from "react";
import { Box, render, Text } from "ink";

const COLUMNS_PER_ROW = 4;
const FRAMES_PER_S = 20;
// Two rows of panes under the title, filling the terminal: taller than the screen, Ink would
// clear it and scroll the title away.
const PANE_WIDTH = Math.floor((process.stdout.columns || 160) / COLUMNS_PER_ROW);
const PANE_HEIGHT = Math.floor(((process.stdout.rows || 48) - 1) / 2);
/** Rows inside a pane's border, less its title. */
const VISIBLE = PANE_HEIGHT - 3;

function Pane({ index, lines }: { index: number; lines: readonly string[] }) {
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", width: PANE_WIDTH, height: PANE_HEIGHT },
    h(Text, { bold: true }, `pane ${index}`),
    // One text for the body, its lines cut to the pane first, as orca draws a pane: then Ink has
    // nothing to wrap (the stream is ASCII, so a slice is a cut by columns).
    h(Text, null, lines.map((line) => line.slice(0, PANE_WIDTH - 2)).join("\n")),
  );
}

function Floor({ title, panes }: { title: string; panes: readonly (readonly string[])[] }) {
  return h(
    Box,
    { flexDirection: "column", width: PANE_WIDTH * COLUMNS_PER_ROW },
    h(Text, { bold: true }, title),
    h(Box, { flexDirection: "row", flexWrap: "wrap" }, ...panes.map((lines, i) => h(Pane, { key: i, index: i, lines }))),
  );
}

export interface InkFloor {
  /** Appends a delta to pane `i`; it shows at the next frame. */
  delta(i: number, text: string): void;
  stop(): void;
}

/** Starts the floor on stdout: `title` first (the harness waits for it), then `panes` panes. */
export function startInkFloor(title: string, panes: number): InkFloor {
  const streams = Array.from({ length: panes }, () => [""]);
  const view = (): ReturnType<typeof h> => h(Floor, { title, panes: streams.map((s) => s.slice(-VISIBLE)) });
  const app = render(view(), { patchConsole: false, exitOnCtrlC: false, maxFps: FRAMES_PER_S });
  let changed = false;
  const timer = setInterval(() => {
    if (!changed) return;
    changed = false;
    app.rerender(view());
  }, 1000 / FRAMES_PER_S);
  return {
    delta(i, text) {
      const lines = streams[i]!;
      const [first = "", ...rest] = text.split("\n");
      lines[lines.length - 1] += first;
      lines.push(...rest);
      changed = true;
    },
    stop() {
      clearInterval(timer);
      app.unmount();
    },
  };
}

// `node <bundle of this file> --start`: the floor on its own, for bench/startup.ts's first frame
// (bundled as the bin is, so with React's production build only, as the bin runs).
if (process.argv[2] === "--start") startInkFloor("SCRIPTED DEMO (Ink floor)", 8);
