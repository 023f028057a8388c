import type { Dispatch } from "react";
import { permissionModeSchema, type PermissionMode } from "../config/schema.js";
import type { SessionApi } from "../orchestrator/types.js";
import { errorLine } from "../util/text.js";
import { writeStartingInstructions } from "../orchestrator/init-instructions.js";
import { diffCommand, reviewCommand, rewindCommand } from "./review-commands.js";
import { agentsDoc, costDoc, helpDoc, mcpDoc, memoryDoc, permissionsDoc, sessionsDoc, skillsDoc } from "./docs.js";
import type { DashboardHost, HostedSession } from "./host.js";
import type { Keymap } from "./keymap.js";
import { copyNotice, copySelection, osc52 } from "./clipboard.js";
import { conversationMarkdown, exportTarget, writeExport } from "./export.js";
import { modelArgProblem, SLASH_COMMANDS, type CustomSlash, type ParsedSlash, type SlashName } from "./slash.js";
import type { DashboardStore } from "./state/store.js";
import type { DocLine, ViewAction } from "./state/ui.js";

/**
 * What each slash command does: one handler per row of SLASH_COMMANDS (slash.ts), in a map typed
 * by the rows' names, so a row without a handler (or a handler without a row) does not typecheck.
 */

export const MODES = permissionModeSchema.options;

const MODE_MEANS: Record<PermissionMode, string> = {
  default: "asks before anything that changes something",
  "accept-edits": "file edits go through, bash asks",
  plan: "read-only tools only: writes are refused",
  bypass: "everything runs without asking, except deny rules",
};

/** The next mode in the Shift+Tab ring. */
export function nextMode(mode: PermissionMode): PermissionMode {
  return MODES[(MODES.indexOf(mode) + 1) % MODES.length]!;
}

export interface CommandContext {
  session: SessionApi;
  store: DashboardStore;
  host?: DashboardHost;
  keymap: Keymap;
  busy: boolean;
  dispatchView: Dispatch<ViewAction>;
  /** Re-renders after a change the store does not see (the mode, the model). */
  refresh(): void;
  exit(code: number): void;
  switchTo(next: HostedSession): void;
  /** The coordinator's last answer as the model wrote it (Markdown), for /copy. */
  lastAnswer?(): string;
  /** Writes an escape sequence to the terminal itself (OSC 52), past the frame. */
  writeRaw?(sequence: string): void;
  /** Runs a custom command (`.orca/commands`, `.claude/commands`) with its arguments. */
  runCustom?(name: string, arg: string): void;
  /** The custom commands /help lists. */
  custom?: readonly CustomSlash[];
  /** Sends a prompt to the coordinator as the user would (queued while a run goes on). */
  submit?(text: string): void;
  /** Puts text in the input box to edit and send (a rewound turn's prompt). */
  restoreInput?(text: string): void;
}

/** Switches the permission mode and says so in the transcript. */
export function setMode(ctx: Pick<CommandContext, "session" | "store" | "refresh">, mode: PermissionMode): void {
  ctx.session.setPermissionMode(mode);
  ctx.store.notices([`mode: ${mode} — ${MODE_MEANS[mode]}`]);
  ctx.refresh();
}

/** What a handler gets: the command's argument (trimmed) and the dashboard it acts on. */
export interface CommandRun {
  arg: string;
  ctx: CommandContext;
  say(line: string): void;
  open(title: string, lines: DocLine[]): void;
  /** Leaves this session for a new one (/clear) or a logged one (/resume ID). */
  swap(to: { resume?: string }, what: string): void;
}

export type SlashHandlers = { readonly [N in SlashName]: (run: CommandRun) => void };

export const SLASH_HANDLERS: SlashHandlers = {
  help: ({ ctx, open }) => open("help", helpDoc(ctx.keymap, ctx.custom)),
  agents: ({ ctx, open }) => open("agents", agentsDoc(ctx.store.getSnapshot(), ctx.host)),
  tasks: ({ ctx }) => ctx.dispatchView({ type: "open", target: { kind: "tasks" } }),
  cost: ({ ctx, open }) => open("cost", costDoc(ctx.store.getSnapshot())),
  compact: ({ ctx, say }) => {
    if (ctx.busy) return say("✗ /compact: a run is in progress; compact when it ends");
    say("compacting the coordinator's history…");
    ctx.session.compact().then(
      (done) => (done ? undefined : say("nothing to compact yet: the history is only the last few rounds")),
      (error: unknown) => say(`✗ /compact: ${errorLine(error)}`),
    );
  },
  clear: ({ swap }) => swap({}, "starting a new session"),
  model: ({ arg, ctx, say }) => {
    if (!arg) return say(`model: ${ctx.session.modelName} (/model NAME switches; provider/name for another provider)`);
    const problem = modelArgProblem(arg);
    if (problem) return say(`✗ /model: ${problem}`);
    try {
      ctx.session.setModel(arg);
    } catch (error) {
      return say(`✗ /model: ${errorLine(error)}`);
    }
    say(`model: ${ctx.session.modelName} from the next request on`);
    ctx.refresh();
  },
  mode: ({ arg, ctx, say }) => {
    if (!arg) return say(`mode: ${ctx.session.permissionMode} — ${MODE_MEANS[ctx.session.permissionMode]} (modes: ${MODES.join(", ")}; Shift+Tab cycles)`);
    const mode = MODES.find((m) => m === arg.toLowerCase());
    if (!mode) return say(`✗ /mode: "${arg}" is not a mode (${MODES.join(", ")})`);
    setMode(ctx, mode);
  },
  permissions: ({ arg, ctx, say, open }) => {
    const remove = /^remove\s+(.+?)(?:\s+--(project|user))?$/s.exec(arg.trim());
    if (remove) {
      const rule = remove[1]!;
      const scope = remove[2] as "project" | "user" | undefined;
      // --project / --user: out of that config file, as `orca permissions remove RULE --project` does.
      if (scope) {
        if (!ctx.session.removeSavedRule) return say("✗ /permissions: this session cannot change its rules");
        const { removed, line } = ctx.session.removeSavedRule(rule, scope);
        return say(removed ? line : `✗ /permissions: ${line}`);
      }
      if (!ctx.session.removeSessionRule) return say("✗ /permissions: this session cannot change its rules");
      return say(ctx.session.removeSessionRule(rule) ? `removed the session rule ${rule.trim()}` : `✗ /permissions: no session rule ${rule.trim()} (see /permissions)`);
    }
    if (arg.trim()) return say(`✗ /permissions: "${arg.trim()}" — use /permissions or /permissions remove <rule> [--project|--user]`);
    open("permissions", permissionsDoc(ctx.session.permissionRules?.() ?? []));
  },
  mcp: ({ ctx, open }) => open("mcp", mcpDoc(ctx.store.getSnapshot(), ctx.session.mcpServers())),
  skills: ({ ctx, open }) => open("skills", skillsDoc(ctx.host)),
  memory: ({ ctx, open }) => open("memory", memoryDoc(ctx.host)),
  init: ({ ctx, say }) => {
    try {
      const result = writeStartingInstructions(ctx.session.workspaceRoot);
      if ("exists" in result) return say(`✗ /init: ${result.exists} exists; it was left as it is`);
      say(`wrote ${result.written} from a scan of the project: edit it; it joins the system prompt from the next session (/clear)`);
    } catch (error) {
      say(`✗ /init: ${errorLine(error)}`);
    }
  },
  sessions: ({ ctx, open }) => open("sessions", sessionsDoc(ctx.host)),
  resume: ({ arg, ctx, open, swap }) => (arg ? swap({ resume: arg }, `resuming ${arg}`) : open("sessions", sessionsDoc(ctx.host))),
  hooks: ({ ctx, say, open }) => report(ctx, "hooks", say, open),
  tools: ({ ctx, say, open }) => report(ctx, "tools", say, open, mcpDoc(ctx.store.getSnapshot(), ctx.session.mcpServers())),
  doctor: ({ ctx, say, open }) => report(ctx, "doctor", say, open),
  copy: ({ arg, ctx, say }) => {
    const picked = copySelection(ctx.lastAnswer?.() ?? "", arg);
    if ("error" in picked) return say(`✗ /copy: ${picked.error}`);
    const write = ctx.writeRaw ?? ((s: string) => process.stdout.write(s));
    write(osc52(picked.text, Boolean(process.env.TMUX)));
    say(copyNotice(picked.what, picked.text, process.env));
  },
  export: ({ arg, ctx, say }) => {
    const target = exportTarget(arg, ctx.session.id);
    writeExport(ctx.session.workspaceRoot, target, conversationMarkdown(ctx.store.getSnapshot())).then(
      (file) => say(`exported the conversation to ${file}`),
      (error: unknown) => say(`✗ /export: ${errorLine(error)}`),
    );
  },
  exit: ({ ctx }) => ctx.exit(0),
  review: reviewCommand,
  diff: diffCommand,
  rewind: rewindCommand,
};

/** /hooks, /tools, /doctor: what `orca hooks`, `orca tools`, `orca doctor` print, from the CLI around the dashboard. */
function report(ctx: CommandContext, what: "hooks" | "tools" | "doctor", say: (line: string) => void, open: (title: string, lines: DocLine[]) => void, extra: DocLine[] = []): void {
  const ask = ctx.host?.report;
  if (!ask) return say(`✗ /${what} is not available here (orca ${what} in a shell shows it)`);
  ask(what).then(
    (lines) => open(what, [...lines.map((text) => ({ text })), ...(extra.length ? [{ text: "" }, ...extra] : [])]),
    (error: unknown) => say(`✗ /${what}: ${errorLine(error)}`),
  );
}

/** Runs a slash command. Everything it says goes to the transcript or the viewer; nothing reaches a model. */
export function runCommand(parsed: Exclude<ParsedSlash, null>, ctx: CommandContext): void {
  const say = (line: string): void => ctx.store.notices([line]);
  if (parsed.kind === "unknown") {
    say(`✗ unknown command /${parsed.name} — /help lists the commands (it was not sent to the model)`);
    return;
  }
  if (parsed.kind === "custom") {
    if (!ctx.runCustom) return say(`✗ /${parsed.name} is not available here`);
    return ctx.runCustom(parsed.name, parsed.arg);
  }
  const open = (title: string, lines: DocLine[]): void => ctx.dispatchView({ type: "open", target: { kind: "doc", title, lines } });
  const swap = (to: { resume?: string }, what: string): void => {
    if (!ctx.host?.switchSession) return say(`✗ /${parsed.name} is not available here`);
    if (ctx.busy) return say(`✗ /${parsed.name}: a run is in progress; Esc cancels it first`);
    say(`${what}…`);
    ctx.host.switchSession(to).then(ctx.switchTo, (error: unknown) => say(`✗ /${parsed.name}: ${errorLine(error)}`));
  };
  if (parsed.arg && !SLASH_COMMANDS.find((c) => c.name === parsed.name)?.args) return say(`✗ /${parsed.name} takes no argument (it was not run)`);
  SLASH_HANDLERS[parsed.name]({ arg: parsed.arg, ctx, say, open, swap });
}
