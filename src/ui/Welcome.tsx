import { Box, Text } from "ink";
import type React from "react";
import { createContext, useContext, useSyncExternalStore } from "react";
import { RowView, type AgentPaneProps } from "./AgentPane.js";
import { fitFields, type Field } from "./fit.js";
import { useKeymap } from "./hooks/key-layers.js";
import { KeyPriority, keysText, type Action, type Keymap } from "./keymap.js";
import { color } from "./theme.js";
import type { Row } from "./wrap.js";
import { displayLine } from "./format.js";

/**
 * The first screen of a dashboard opened without a prompt: what orca loaded (model, workspace,
 * agents, skills, MCP servers) and the keys, in the coordinator's pane until the first message.
 */

export interface McpStatusSource {
  status(): readonly { name: string; state: string }[];
  onChange(listener: () => void): () => void;
}

export interface WelcomeInfo {
  version: string;
  model: string;
  /** Where the model is served, when it is not the provider's default. */
  endpoint?: string;
  workspace: string;
  home?: string;
  /** Agent names; the first is the one the user talks to. */
  agents: readonly string[];
  skills: readonly string[];
  mcp?: McpStatusSource;
}

/** Provided by runDashboard when there is something to welcome the user with. */
export const WelcomeContext = createContext<WelcomeInfo | null>(null);

/** The first keys to know, from the keymap in force (a rebinding shows here too); `width` drops the later ones. */
export function welcomeKeys(keymap: Keymap, width: number): string {
  const key = (layer: KeyPriority, action: Action, what: string, drop: number): Field[] => {
    const keys = keysText(keymap, layer, action);
    return keys ? [{ text: `${keys} ${what}`, drop }] : [];
  };
  const D = KeyPriority.Dashboard;
  const fields = [
    ...key(KeyPriority.Input, "submit", "send", 0),
    ...key(D, "focus_next", "focus a pane", 1),
    ...key(D, "cycle_mode", "mode", 3),
    ...key(D, "cancel", "cancel", 2),
    ...key(D, "interrupt", "exit", 0),
  ];
  return fitFields(fields, width)
    .map((f) => f.text)
    .join(" · ");
}

/** Where the rest is: /help, and `?` when it is bound. */
function helpLine(keymap: Keymap): string {
  const help = keysText(keymap, KeyPriority.Dashboard, "help");
  return `/help${help ? ` (or ${help} on an empty input)` : ""} lists every key and command · / opens the command popup`;
}

const NO_MCP = { status: () => [], onChange: () => () => undefined };

/** The coordinator's pane before its conversation starts, with the props of the AgentPane it stands in for. */
export interface WelcomeProps extends Pick<AgentPaneProps, "agent" | "rows" | "width" | "height" | "focused" | "frame" | "now"> {
  /** The coordinator's own pane, shown once the conversation starts. */
  children: React.ReactNode;
}

export function Welcome({ agent, rows, width, height, focused, frame, now, children }: WelcomeProps): React.JSX.Element {
  const info = useContext(WelcomeContext);
  const empty = agent.entries.every((e) => e.kind === "notice");
  if (!info || !empty) return <>{children}</>;
  return <WelcomePane info={info} rows={rows} width={width} height={height} focused={focused} frame={frame} now={now} />;
}

function WelcomePane({ info, rows, width, height, focused, frame, now }: { info: WelcomeInfo; rows: readonly Row[]; width: number; height: number; focused: boolean; frame: number; now: number }): React.JSX.Element {
  const mcp = useMcpSummary(info.mcp ?? NO_MCP);
  const keymap = useKeymap();
  const [lead, ...others] = info.agents;
  const fields: [string, string][] = [
    ["model", `${info.model}${info.endpoint ? ` · ${info.endpoint}` : ""}`],
    ["workspace", home(info.workspace, info.home)],
    ["agents", lead ? `${lead} (you talk to it)${others.length ? ` · ${others.join(" · ")}` : ""}` : "none"],
    ["skills", info.skills.length ? info.skills.join(" · ") : "none"],
    ["MCP", mcp || "none configured"],
    // The border 2, the name column 10.
    ["keys", welcomeKeys(keymap, width - 12)],
    ["help", helpLine(keymap)],
  ];
  // Border 2, title 1, the fields, a hint 1: notices get what is left.
  const room = Math.max(0, height - 4 - fields.length);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color(focused ? "focus" : "border")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("brand")}>
          orca {info.version}
        </Text>
        <Text color={color("muted")}> · type a task below: the coordinator plans it and delegates</Text>
      </Text>
      {fields.map(([name, value]) => (
        <Text key={name} wrap="truncate-end">
          <Text color={color("muted")}>{name.padEnd(10)}</Text>
          {displayLine(value)}
        </Text>
      ))}
      {rows.slice(-room).map((row) => (
        <RowView key={row.key} row={row} frame={frame} now={now} selected={false} inline width={width - 2} />
      ))}
    </Box>
  );
}

/** "fs connected · memory failed", following the servers as they connect. */
function useMcpSummary(source: McpStatusSource): string {
  return useSyncExternalStore(source.onChange, () =>
    source
      .status()
      .map((s) => `${s.name} ${s.state}`)
      .join(" · "),
  );
}

function home(path: string, dir: string | undefined): string {
  return dir && (path === dir || path.startsWith(`${dir}/`)) ? `~${path.slice(dir.length)}` : path;
}
