import { Box, Text } from "ink";
import type React from "react";
import { memo } from "react";
import { textWidth as stringWidth } from "./wrap-styled.js";
import type { PermissionMode } from "../config/schema.js";
import { fitFields, type Field } from "./fit.js";
import { agentTitle, formatDuration, formatTokens } from "./format.js";
import { costText, runBudgetText } from "./cost-text.js";
import type { DashboardState } from "./state/types.js";
import { color, type Role } from "./theme.js";
import { terminalSafe } from "../util/terminal-text.js";

export interface HeaderProps {
  state: DashboardState;
  model: string;
  workspace: string;
  sessionId: string;
  startedAt: number;
  now: number;
  demo: boolean;
  busy: boolean;
  mode: PermissionMode;
  /** Commands that may write run unasked in the sandbox (permissions.sandboxed_commands). */
  sandboxAuto?: boolean;
  width: number;
}

function shortPath(path: string, max: number): string {
  const home = process.env.HOME;
  const p = home && path.startsWith(home) ? `~${path.slice(home.length)}` : path;
  return p.length > max ? `…${p.slice(p.length - max + 1)}` : p;
}

export interface HeaderField extends Field {
  readonly role?: Role;
  readonly bold?: boolean;
}

const MODE_ROLE: Record<PermissionMode, Role> = { default: "muted", "accept-edits": "accent", plan: "ok", bypass: "error" };

/** The header's first fields: the command line alone says them, so the first frame has them too (early-frame.tsx). */
export function leadingFields(model: string): HeaderField[] {
  return [
    { text: "orca", drop: 0, role: "brand", bold: true },
    { text: terminalSafe(model), drop: 1 },
  ];
}

/**
 * The header's fields, in order. Narrow, whole fields go (session id, then workspace, elapsed,
 * tokens…), so what stays is never cut mid-word; the model and the permission mode stay longest.
 */
export function headerFields(p: Omit<HeaderProps, "width" | "demo">): HeaderField[] {
  const t = p.state.totals;
  const tokens = t.input + t.output;
  const servers = Object.values(p.state.mcp);
  const live = servers.filter((s) => s.state === "connected" || s.state === "restarted").length;
  const failed = servers.some((s) => s.state === "failed");
  const fields: HeaderField[] = [...leadingFields(p.model), { text: `mode: ${p.mode}`, drop: 1, role: MODE_ROLE[p.mode] }];
  if (p.sandboxAuto) fields.push({ text: "sandboxed cmds: auto", drop: 2, role: "muted" });
  // A resumed session says so until the last field goes: what is on screen came from the log.
  if (p.state.session.resumed) fields.push({ text: "resumed", drop: 2, role: "label" });
  if (servers.length) fields.push({ text: `mcp ${live}/${servers.length} up`, drop: 2, role: failed ? "error" : live < servers.length ? "warn" : "muted" });
  fields.push({ text: `${formatTokens(tokens)} tok${t.cached ? ` (${formatTokens(t.cached)} cached)` : ""}`, drop: 3 });
  const spent = costText(t);
  if (spent) fields.push({ text: spent, drop: 2 });
  const run = runBudgetText(p.state);
  if (run) fields.push({ text: run, drop: 1 });
  fields.push({ text: shortPath(terminalSafe(p.state.session.workspace ?? p.workspace), 40), drop: 5 });
  fields.push({ text: `session ${p.sessionId}`, drop: 6, role: "muted" });
  fields.push({ text: formatDuration(p.now - p.startedAt), drop: 4, role: "muted" });
  if (p.busy) fields.push({ text: "running", drop: 3, role: "running" });
  return fields;
}

const BADGE = " SCRIPTED DEMO ";

/** model · mode · MCP · tokens · cost · workspace · session · elapsed, and the demo badge. */
function HeaderImpl(props: HeaderProps): React.JSX.Element {
  return headerLine(headerFields(props), props.demo, props.width);
}

/** The header line of `fields`, as many as fit in `width` beside the demo badge. */
export function headerLine(fields: readonly HeaderField[], demo: boolean, width: number): React.JSX.Element {
  return <HeaderLine fields={fitFields(fields, width - (demo ? stringWidth(BADGE) + 1 : 0))} demo={demo} />;
}

/**
 * What the header reads from the state, and its clock as shown: the state changes with every
 * streamed delta, none of this does, so a streaming frame skips the header whole.
 */
function sameHeader(a: HeaderProps, b: HeaderProps): boolean {
  const same = (k: keyof HeaderProps): boolean => a[k] === b[k];
  return (
    same("model") && same("workspace") && same("sessionId") && same("startedAt") && same("demo") && same("busy") && same("mode") && same("sandboxAuto") && same("width") &&
    a.state.totals === b.state.totals && a.state.mcp === b.state.mcp && a.state.session === b.state.session && a.state.runBudget === b.state.runBudget &&
    formatDuration(a.now - a.startedAt) === formatDuration(b.now - b.startedAt)
  );
}

export const Header = memo(HeaderImpl, sameHeader);

interface HeaderLineProps {
  fields: readonly HeaderField[];
  demo: boolean;
}

const sameHeaderFields = (a: readonly HeaderField[], b: readonly HeaderField[]): boolean =>
  a.length === b.length && a.every((f, i) => f.text === b[i]!.text && f.role === b[i]!.role && f.bold === b[i]!.bold);

/**
 * The line itself is drawn again only when a field's text changes: the state behind the header
 * changes with every streamed delta, its text about once a second (the clock).
 */
const HeaderLine = memo(
  function HeaderLine({ fields, demo }: HeaderLineProps): React.JSX.Element {
    return (
      <Box height={1}>
        <Text wrap="truncate-end">
          {demo ? (
            <Text backgroundColor={color("badge")} color={color("badgeText")} bold inverse={!color("badge")}>
              {BADGE}
            </Text>
          ) : null}
          {demo ? " " : ""}
          {fields.map((f, i) => (
            <Text key={f.text}>
              {i ? <Text color={color("muted")}> · </Text> : null}
              <Text color={f.role ? color(f.role) : undefined} bold={f.bold}>
                {f.text}
              </Text>
            </Text>
          ))}
        </Text>
      </Box>
    );
  },
  (a, b) => a.demo === b.demo && sameHeaderFields(a.fields, b.fields),
);

/** Running and waiting tool calls; what the first waiting call waits on. */
export function QueueLine({ state }: { state: DashboardState }): React.JSX.Element {
  const calls = Object.values(state.active);
  const running = calls.filter((c) => c.state === "running");
  const waiting = calls.filter((c) => c.state === "waiting" || c.state === "queued");
  const { scheduler } = state;
  const runningCount = Math.max(scheduler.running, running.length);
  const waitingCount = Math.max(scheduler.waiting, waiting.length);
  const asking = calls.filter((c) => c.state === "asking").length;
  const first = waiting.find((c) => c.waitsFor.length > 0);
  let detail = "";
  if (first) {
    const agent = state.agents[first.agentId];
    const who = agent ? agentTitle(agent) : first.agentId;
    const blockers = first.blockers?.length ? first.blockers : first.waitsFor;
    // Who waits for whom first: on a narrow terminal the call itself is what gets cut.
    detail = ` │ ${who} waits for ${blockers.join(", ")}: ${`${first.name} ${first.summary}`.trim()}`;
  } else if (running.length) {
    detail = ` │ ${running
      .slice(0, 4)
      .map((c) => `${c.name} ${c.summary}`.trim())
      .join(" · ")}`;
  }
  return <QueueText running={runningCount} waiting={waitingCount} asking={asking} conflicts={state.conflicts} detail={detail} />;
}

interface QueueTextProps {
  running: number;
  waiting: number;
  asking: number;
  conflicts: number;
  detail: string;
}

/** The queue line as drawn: its props are its text, so a flush that changes none of it skips it. */
const QueueText = memo(function QueueText({ running, waiting, asking, conflicts, detail }: QueueTextProps): React.JSX.Element {
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        <Text color={color(running ? "running" : "muted")}>⚙ {running} running</Text>
        <Text color={color(waiting ? "warn" : "muted")}> · {waiting} waiting</Text>
        {asking ? <Text color={color("warn")}> · {asking} asking</Text> : null}
        {conflicts ? <Text color={color("error")}> · {conflicts} write conflict{conflicts === 1 ? "" : "s"}</Text> : null}
        <Text color={color("muted")}>{detail}</Text>
      </Text>
    </Box>
  );
});

/** The status (what just happened; it clears on the next key), a separator, then as many key hints as fit, whole. */
interface KeyHintsProps {
  hints: readonly Field[];
  notice?: string;
  width: number;
}

const sameFields = (a: readonly Field[], b: readonly Field[]): boolean => a.length === b.length && a.every((f, i) => f.text === b[i]!.text && f.drop === b[i]!.drop);

/** The hints are rebuilt on every render of the App, but change only with what has focus. */
export const KeyHints = memo(KeyHintsLine, (a: KeyHintsProps, b: KeyHintsProps) => a.notice === b.notice && a.width === b.width && sameFields(a.hints, b.hints));

/** Between the status (what just happened) and the key hints, so the two never read as one. */
export const STATUS_SEPARATOR = " │ ";

function KeyHintsLine({ hints, notice, width }: KeyHintsProps): React.JSX.Element {
  const room = width - (notice ? stringWidth(notice) + stringWidth(STATUS_SEPARATOR) : 0);
  const shown = room > 0 ? fitFields(hints, room) : [];
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        {notice ? <Text color={color("warn")}>{notice}</Text> : null}
        {notice && shown.length ? <Text color={color("border")}>{STATUS_SEPARATOR}</Text> : null}
        <Text color={color("muted")}>{shown.map((h) => h.text).join(" · ")}</Text>
      </Text>
    </Box>
  );
}
