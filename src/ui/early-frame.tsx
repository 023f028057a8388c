import { Box, render } from "ink";
import type React from "react";
import { openDashboardTerminal } from "./dashboard-terminal.js";
import { holdEarlyFrame } from "./early-frame-slot.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { InputBox } from "./InputBox.js";
import { computeLayout } from "./layout.js";
import type { EditorState } from "./state/editor.js";
import { FittedHeader, leadingFields } from "./StatusBar.js";
import { color } from "./theme.js";

export interface EarlyFrameOptions {
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  demo: boolean;
  /** The model the command line names (the header's second field). */
  model: string;
}

const EMPTY: EditorState = { text: "", cursor: 0, history: [], historyIndex: 0, draft: "" };

/**
 * The dashboard as it opens, before there is a session: the header's first fields, the
 * coordinator's pane still empty, the input box — in the places the dashboard's own first frame
 * puts them (the same layout), so taking over rewrites only what the session fills in.
 */
function EarlyDashboard({ demo, model }: Pick<EarlyFrameOptions, "demo" | "model">): React.JSX.Element {
  const size = useTerminalSize();
  const layout = computeLayout({ columns: size.columns, rows: size.rows, inputLines: 1, agents: [], focus: null });
  return (
    <Box flexDirection="column" width={layout.width} height={layout.height} overflowY="hidden">
      <FittedHeader fields={leadingFields(model)} demo={demo} width={layout.width} />
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
 * Draws the dashboard's first frame now, before the rest of orca has loaded, and leaves it for
 * runDashboard to take over (early-frame-slot.ts). The terminal is the dashboard's from here:
 * alternate screen and raw mode, so a key typed meanwhile waits in stdin for the dashboard, and a
 * SIGTERM / SIGHUP before it is up restores the terminal and exits.
 */
export function paintEarlyFrame(opts: EarlyFrameOptions): void {
  const terminal = openDashboardTerminal(opts.stdout, opts.stdin);
  const ink = render(<EarlyDashboard demo={opts.demo} model={opts.model} />, { stdout: terminal.stream, stdin: opts.stdin, exitOnCtrlC: false, patchConsole: false });
  terminal.ink = ink;
  holdEarlyFrame({ stdout: opts.stdout, terminal, unmount: () => ink.unmount() });
}
