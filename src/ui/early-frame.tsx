import { Box, renderToString } from "ink";
import type React from "react";
import { openDashboardTerminal } from "./dashboard-terminal.js";
import { holdEarlyFrame } from "./early-frame-slot.js";
import { framesAreBracketed, SYNC_BEGIN, SYNC_END } from "./frame-diff.js";
import { InputBox } from "./InputBox.js";
import { computeLayout } from "./layout.js";
import type { EditorState } from "./state/editor.js";
import { headerLine, leadingFields } from "./StatusBar.js";
import { color } from "./theme.js";

export interface EarlyFrameOptions {
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  demo: boolean;
  /** The model the command line names (the header's second field); none named, the header has the brand alone until the dashboard's frame. */
  model?: string;
  /**
   * The terminal comes from a question the dashboard follows (the trust prompt, in raw mode): it is
   * held for the dashboard even where no frame is drawn early, so keys typed while the session
   * starts wait in stdin instead of going to a terminal in cooked mode.
   */
  handOver?: boolean;
}

const EMPTY: EditorState = { text: "", cursor: 0, history: [], historyIndex: 0, draft: "" };

/**
 * The dashboard as it opens, before there is a session: the header's first fields, the
 * coordinator's pane still empty, the input box — in the places the dashboard's own first frame
 * puts them (the same layout), so the dashboard's first frame rewrites only what the session fills in.
 */
function EarlyDashboard({ demo, model, columns, rows }: Pick<EarlyFrameOptions, "demo" | "model"> & { columns: number; rows: number }): React.JSX.Element {
  const layout = computeLayout({ columns, rows, inputLines: 1, agents: [], focus: null });
  return (
    <Box flexDirection="column" width={layout.width} height={layout.height} overflowY="hidden">
      {headerLine(model ? leadingFields(model) : leadingFields("").slice(0, 1), demo, layout.width)}
      <Box flexDirection="column" height={layout.bodyHeight}>
        <Box width={layout.width} height={layout.coordinator.height} borderStyle="round" borderColor={color("focus")} />
      </Box>
      {/* The queue line's row. */}
      <Box height={1} />
      <InputBox editor={EMPTY} width={layout.width} height={layout.inputHeight} placeholder="" active />
    </Box>
  );
}

/**
 * Draws the dashboard's first frame now, before the rest of orca has loaded, and leaves the
 * terminal for runDashboard to take over (early-frame-slot.ts). The terminal is the dashboard's
 * from here: alternate screen and raw mode, so a key typed meanwhile waits in stdin for the
 * dashboard, and a SIGTERM / SIGHUP / SIGINT before it is up restores the terminal and exits.
 *
 * The frame is Ink's rendering as a string, written as Ink writes a frame (between the
 * synchronized-output brackets the frame diff goes by), not an Ink instance: the dashboard's own
 * instance then starts fresh. Ink draws at most a frame each 1/30 s and each frame starts a timer
 * that a frame asked for meanwhile waits for; an instance shared with this frame made the
 * dashboard's first frame wait for that timer, which fires only when the event loop gets to its
 * timers — after the start of the first request (~150 ms later on Node 24).
 *
 * Only where the frame diff draws the dashboard (a terminal, not CI: frame-diff.ts), so the
 * dashboard's first frame is written as a change from this one; elsewhere nothing is drawn early.
 */
export function paintEarlyFrame(opts: EarlyFrameOptions): void {
  if (!framesAreBracketed(opts.stdout)) {
    if (opts.handOver) holdEarlyFrame({ stdout: opts.stdout, terminal: openDashboardTerminal(opts.stdout, opts.stdin), release: () => {} });
    return;
  }
  const terminal = openDashboardTerminal(opts.stdout, opts.stdin);
  const paint = (): void => {
    const columns = opts.stdout.columns || 80;
    const rows = opts.stdout.rows || 30;
    const frame = renderToString(<EarlyDashboard demo={opts.demo} model={opts.model} columns={columns} rows={rows} />, { columns });
    terminal.stream.write(SYNC_BEGIN);
    terminal.stream.write(`${frame}\n`);
    terminal.stream.write(SYNC_END);
  };
  // The terminal's own resize handler has cleared the screen: draw the frame again, whole, at the new size.
  const onResize = (): void => {
    terminal.resetFrame();
    paint();
  };
  paint();
  opts.stdout.on("resize", onResize);
  const release = (): void => {
    opts.stdout.off("resize", onResize);
  };
  holdEarlyFrame({ stdout: opts.stdout, terminal, release });
}
