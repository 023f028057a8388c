import type { RuleInForce } from "../tools/permissions/engine.js";
import stringWidth from "string-width";
import type { McpServerState } from "../orchestrator/types.js";
import { agentTitle, displayLine, formatTokens } from "./format.js";
import { costText, paneCost, runBudgetText } from "./cost-text.js";
import type { DashboardHost } from "./host.js";
import { helpRows, type Keymap } from "./keymap.js";
import { SLASH_COMMANDS, type CustomSlash } from "./slash.js";
import type { AgentView, DashboardState, McpView } from "./state/types.js";
import type { DocLine } from "./state/ui.js";
import { paint } from "./theme.js";

/** The documents the slash commands open in the viewer: built from state, never sent to a model. */

const heading = (text: string): DocLine => ({ text, styled: paint("heading", text, { bold: true }) });
const blank: DocLine = { text: "" };

/**
 * Columns padded to their widest cell (the last column is not padded). Cells may come from files
 * and logs (a skill's description, a logged prompt): each is made terminal-safe, on one line.
 */
function table(given: readonly string[][], header?: readonly string[]): DocLine[] {
  const rows = given.map((r) => r.map(displayLine));
  const all = header ? [header, ...rows] : rows;
  const widths = (all[0] ?? []).map((_, i) => Math.max(...all.map((r) => stringWidth(r[i] ?? ""))));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(widths[i]! - stringWidth(c)))).join("  ");
  const out: DocLine[] = [];
  if (header) out.push({ text: line(header), styled: paint("muted", line(header), { bold: true }) });
  for (const r of rows) out.push({ text: line(r) });
  return out;
}

export function helpDoc(keymap: Keymap, custom: readonly CustomSlash[] = []): DocLine[] {
  const out: DocLine[] = [heading("Commands (type / for the list; Tab completes)"), ...table(SLASH_COMMANDS.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.help]))];
  if (custom.length) out.push(blank, heading("Custom commands (.orca/commands, .claude/commands)"), ...table(custom.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.help])));
  out.push(blank, { text: "!command runs a command yourself (in the sandbox); @path attaches a file; a long paste shows as [pasted N chars] (Ctrl+O expands it)." });
  let layer = "";
  for (const row of helpRows(keymap)) {
    if (row.layer !== layer) {
      layer = row.layer;
      out.push(blank, heading(`Keys — ${layer}`));
    }
    out.push(...table([[row.keys, row.help]]));
  }
  out.push(blank, { text: "Rebind any action with keys: in config.yaml, e.g. keys: { cycle_mode: ctrl+t, focus_prev: shift+tab }." });
  return out;
}

/** The agents as a tree: the coordinator, then each agent's sub-agents under it (background ones marked). */
function agentTree(state: DashboardState): { agent: AgentView; depth: number }[] {
  const all = [state.rootAgentId, ...state.order].map((id) => state.agents[id]).filter((a): a is AgentView => Boolean(a));
  const out: { agent: AgentView; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (agent: AgentView, depth: number): void => {
    if (seen.has(agent.id)) return;
    seen.add(agent.id);
    out.push({ agent, depth });
    for (const child of all) if (child.parentId === agent.id) visit(child, depth + 1);
  };
  for (const agent of all) if (!agent.parentId || !state.agents[agent.parentId]) visit(agent, 0);
  return out;
}

/** Per agent, as a tree (parent, children, background): tokens in / out / cached and cost; then the session's totals and the run's budget. */
export function costDoc(state: DashboardState): DocLine[] {
  // By id (explorer-1, explorer-2): two agents of one definition are told apart; the root by its name.
  const rows = agentTree(state).map(({ agent: a, depth }) => [
    `${depth ? `${"  ".repeat(depth - 1)}└ ` : ""}${a.id === state.rootAgentId ? `${a.name}${a.label ? ` [${a.label}]` : ""}` : agentTitle(a)}${a.background ? " (bg)" : ""}`,
    formatTokens(a.tokens.input),
    formatTokens(a.tokens.output),
    formatTokens(a.tokens.cached ?? 0),
    paneCost(a.tokens) || "—",
  ]);
  const t = state.totals;
  rows.push(["total", formatTokens(t.input), formatTokens(t.output), formatTokens(t.cached), costText(t) || "—"]);
  const out = [heading("Tokens and cost, per agent (sub-agents under the agent that started them)"), ...table(rows, ["agent", "in", "out", "cached", "cost"])];
  const run = runBudgetText(state);
  if (run) out.push(blank, { text: `This run: ${run.replace(/^run /, "")}.` });
  if (t.unpriced) out.push(blank, { text: "unknown: orca has no price for a model that answered (model.price in config.yaml sets one); it is never counted as $0." });
  return out;
}

export function agentsDoc(state: DashboardState, host: DashboardHost | undefined): DocLine[] {
  const out: DocLine[] = [];
  const defs = host?.catalog?.().agents ?? [];
  if (defs.length) out.push(heading("Agent definitions"), ...table(defs.map((d) => [d.name, d.description])), blank);
  const running = state.order.map((id) => state.agents[id]).filter((a): a is AgentView => Boolean(a));
  out.push(heading("Sub-agents of this session"));
  if (!running.length) out.push({ text: "none yet: the coordinator starts them with delegate" });
  else out.push(...table(running.map((a) => [a.id, `${a.name}${a.label ? ` [${a.label}]` : ""}`, a.status, `${a.steps} step${a.steps === 1 ? "" : "s"}`]), ["id", "agent", "status", "steps"]));
  return out;
}

export function mcpDoc(state: DashboardState, initial: readonly McpServerState[]): DocLine[] {
  const servers = new Map<string, McpView>(initial.map((s) => [s.server, { state: s.state, tools: s.tools, reason: s.reason }]));
  for (const [name, view] of Object.entries(state.mcp)) servers.set(name, view);
  if (!servers.size) return [heading("MCP servers"), { text: "none configured (mcp_servers: in config.yaml, or .mcp.json in the workspace)" }];
  const rows = [...servers.entries()].map(([name, s]) => [name, s.state, s.tools === undefined ? "" : `${s.tools} tools`, s.reason ?? ""]);
  return [heading("MCP servers"), ...table(rows, ["server", "state", "tools", "why"])];
}

export function skillsDoc(host: DashboardHost | undefined): DocLine[] {
  const skills = host?.catalog?.().skills ?? [];
  if (!skills.length) return [heading("Skills"), { text: "none found (.orca/skills, .agents/skills, ~/.config/orca/skills, skills.paths)" }];
  return [heading("Skills (agents load them with get_skill)"), ...table(skills.map((s) => [s.name, s.description]))];
}

export function sessionsDoc(host: DashboardHost | undefined): DocLine[] {
  const sessions = host?.listSessions?.() ?? [];
  if (!sessions.length) return [heading("Sessions"), { text: "no logged sessions in this folder yet" }];
  const when = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  return [
    heading("Sessions of this folder (most recent first) — /resume ID continues one"),
    ...table(
      sessions.map((s) => [s.id, when(s.startedAt), s.status, s.firstPrompt]),
      ["id", "started", "status", "first prompt"],
    ),
  ];
}

const cell = (s: string): string => s.replace(/\|/g, "\\|");

/** The docs' table of slash commands (docs/dashboard.md; scripts/docs-tables.ts writes it there). */
export function commandsMarkdown(): string {
  const out = ["| command | does |", "|---|---|"];
  for (const c of SLASH_COMMANDS) out.push(`| \`/${c.name}${c.args ? ` ${cell(c.args)}` : ""}\` | ${cell(c.help)} |`);
  return out.join("\n");
}

/** The docs' table of keys, per layer (docs/dashboard.md; scripts/docs-tables.ts writes it there). */
export function keysMarkdown(keymap: Keymap): string {
  const out = ["| where | key | does |", "|---|---|---|"];
  for (const row of helpRows(keymap)) out.push(`| ${row.layer} | ${cell(row.keys)} | ${cell(row.help)} |`);
  return out.join("\n");
}

/** /memory: the instruction files joined into system prompts, in order, and those skipped with why. */
export function memoryDoc(host: DashboardHost | undefined): DocLine[] {
  const report = host?.memory?.();
  if (!report) return [heading("Instructions"), { text: "not available here" }];
  const out: DocLine[] = [heading("Instructions in the system prompt (in this order)")];
  if (!report.files.length) out.push({ text: "none: put an AGENTS.md in the project (/init writes a starting one) or ~/.config/orca/AGENTS.md" });
  else out.push(...table(report.files.map((f) => [f.name, `${f.chars} chars`, f.importedBy ? `imported by ${f.importedBy}` : f.source === "user" ? "yours" : "project"])));
  if (report.skipped.length) out.push(blank, heading("Skipped"), ...table(report.skipped.map((s) => [s.name, s.reason])));
  if (report.untrusted) out.push(blank, { text: "The project's own files are not loaded: this folder is not trusted." });
  return out;
}

/** /permissions: every rule in force, what it does and where it came from. */
export function permissionsDoc(rules: readonly RuleInForce[]): DocLine[] {
  const rows = rules.map((r) => [r.kind, r.rule, r.origin + (r.removable ? " — /permissions remove <rule>" : r.scope ? ` — /permissions remove <rule> --${r.scope}` : "")]);
  return [heading("Permission rules in force (deny, then ask, then allow, then the mode)"), ...table(rows, ["", "rule", "from"])];
}
