import type { PermissionMode } from "../../config/schema.js";
import type { EmitFn } from "../../events/types.js";
import type { Approver } from "../approver.js";
import type { SandboxRequest } from "../sandbox/types.js";
import { analyseCommand, loadShellParser, shellParserLoaded } from "../shell/index.js";
import type { AnyTool, PermissionSubject } from "../tool.js";
import type { Workspace } from "../workspace.js";
import { errorLine } from "../../util/text.js";
import type { StopRun, ToolHooks } from "../tool-hooks.js";
import { Asker } from "./ask.js";
import { autoApprovalProblem, protectedProblem, sandboxedCommandsAuto, sandboxFor } from "./command-policy.js";
import { namedPaths, outsidePaths, protectedReason } from "./protected-paths.js";
import { allowedBy, denyMatch, parseRule, type Rule } from "./rules.js";
import { rulesInForce, type RuleInForce } from "./in-force.js";

export type { RuleInForce } from "./in-force.js";

/**
 * Whether one tool call may run, and for a bash command in which sandbox. DESIGN §7.
 *
 * Order: deny rules; a command's request to leave the sandbox (a person only); plan mode; a
 * PreToolUse hook's ask; a deny rule that may apply to an uncertain command (asks); bypass;
 * protected paths; this session's "always" answers; ask rules; allow rules (config, then a skill's
 * allowed-tools, then a PreToolUse allow); then the mode.
 *
 * A bash command runs unasked only in the sandbox: one the read-only hint vouches for (and that
 * names nothing outside the workspace or denied), in a read-only sandbox; one an allow rule, a
 * skill, an "always", bypass or a person allowed, in the workspace-write sandbox. Plan mode runs
 * every command in the read-only sandbox. With no sandbox, only explicit allowances run unasked.
 */

export type DecidedBy = "rule" | "mode" | "user" | "headless" | "skill" | "hook";

export type PermissionDecision =
  /** `args`: the input a PermissionRequest hook rewrote (validated); `sandbox`: where a command must run. */
  | { allowed: true; by: DecidedBy; rule: string; args?: unknown; sandbox?: SandboxRequest }
  | { allowed: false; by: DecidedBy; rule: string; reason: string };

/** A PreToolUse hook's answer, for the check that follows it (its deny never gets here). */
export interface PreToolHookAnswer {
  decision: "allow" | "ask";
  /** `hook PreToolUse: ./check.sh` */
  rule: string;
  reason?: string;
}

export interface PermissionCheck {
  callId: string;
  agentId: string;
  parentId?: string;
  agentName: string;
  tool: AnyTool;
  args: unknown;
  /** The calling agent's own workspace (a git worktree), when it is not the session's. */
  workspace?: Workspace;
}

export interface PermissionsOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  approver: Approver;
  emit: EmitFn;
  workspace: Workspace;
  /** Whether commands can be sandboxed (the session's Sandbox); none: they cannot. */
  sandbox?: { readonly available: boolean; readonly status?: { readonly network: string } };
  /** permissions.sandboxed_commands (unset: by mode, see command-policy.ts). */
  sandboxedCommands?: "ask" | "auto";
  /** PermissionRequest and Notification hooks. */
  hooks?: ToolHooks;
  /** A PermissionRequest hook's `interrupt`: the run ends. */
  stopRun?: StopRun;
}

type Subject = PermissionSubject;

export class Permissions {
  /** Settable: the dashboard switches modes while a session runs. */
  mode: PermissionMode;
  private readonly allow: Rule[];
  private readonly askRules: Rule[];
  private readonly deny: Rule[];
  /** A skill's allowed-tools, for the agent that loaded it only. */
  private readonly skills = new Map<string, Rule[]>();
  private readonly workspace: Workspace;
  private readonly sandbox: NonNullable<PermissionsOptions["sandbox"]>;
  private readonly sandboxedCommands: "ask" | "auto" | undefined;
  private readonly asker: Asker;
  private readonly emit: EmitFn;

  constructor(opts: PermissionsOptions) {
    this.emit = opts.emit;
    this.mode = opts.mode;
    this.allow = opts.allow.map((r) => parseRule(r));
    this.askRules = opts.ask.map((r) => parseRule(r));
    this.deny = opts.deny.map((r) => parseRule(r));
    this.workspace = opts.workspace;
    this.sandbox = opts.sandbox ?? { available: false };
    this.sandboxedCommands = opts.sandboxedCommands;
    this.asker = new Asker({ approver: opts.approver, emit: opts.emit, workspace: opts.workspace, hooks: opts.hooks, stopRun: opts.stopRun, recheck: (call, args, hookRule, signal) => this.checkRewritten(call, args, hookRule, signal) });
  }

  /** Every rule in force and where it came from (/permissions). */
  rulesInForce(): RuleInForce[] {
    return rulesInForce({ deny: this.deny, ask: this.askRules, session: this.asker.session, origins: this.asker.origins, allow: this.allow, skills: this.skills, mode: this.mode, autoSandboxed: this.autoSandboxed() });
  }

  /** Stops applying a config allow rule (/permissions remove took it out of its file). */
  removeConfigRule(text: string): void {
    for (let at; (at = this.allow.findIndex((r) => r.text === text.trim())) !== -1; ) this.allow.splice(at, 1);
  }

  /** Removes a session rule (an "always" answer); false when none is written so. */
  removeSessionRule(text: string): boolean {
    return this.asker.forget(text.trim()) > 0;
  }

  /** Adds a session-wide rule, as an "always" answer would (every agent shares it). */
  allowAlways(rule: string): void {
    this.asker.remember(parseRule(rule));
  }

  /**
   * A skill's allowed-tools (already mapped to orca rules by the skills loader), for `agentId`
   * only; `${SKILL_DIR}` in a command pattern is the skill's folder. A malformed entry
   * pre-approves nothing; its one-line error is returned, not thrown, so a sloppy SKILL.md cannot
   * break the call that loaded it.
   */
  preApprove(agentId: string, patterns: string[], vars: Readonly<Record<string, string>> = {}): string[] {
    const errors: string[] = [];
    const rules: Rule[] = [];
    for (const pattern of patterns) {
      try {
        rules.push(parseRule(pattern, vars));
      } catch (error) {
        errors.push(errorLine(error));
      }
    }
    const list = this.skills.get(agentId);
    if (list) list.push(...rules);
    else this.skills.set(agentId, rules);
    return errors;
  }

  /**
   * Whether a permission rule (orca's spelling) matches this call the way a deny or ask rule would:
   * a hook handler's `if`. A rule that cannot be read or a call that has no subject matches, so
   * the hook runs (Claude Code's rule when it cannot evaluate one).
   */
  ruleMatches(tool: AnyTool, args: unknown, rule: string): boolean {
    try {
      const subject = tool.permissionSubject(args, this.workspace);
      // Before the shell grammar has loaded a command cannot be read: the hook runs.
      if (subject.kind === "command" && !shellParserLoaded()) return true;
      return denyMatch(parseRule(rule), tool.name, subject) !== "no";
    } catch {
      return true;
    }
  }

  /** The `read_file(PATTERN)` deny rule that hides a workspace-relative path's content, if any. */
  readDenied(relative: string): string | undefined {
    const subject: Subject = { kind: "path", value: relative.startsWith("./") ? relative.slice(2) : relative };
    return this.deny.find((r) => r.tool("read_file") && denyMatch(r, "read_file", subject) === "yes")?.text;
  }

  /**
   * Resolves once the shell grammar has loaded (or failed to: every command is then uncertain and
   * asks). Every command is read by it, so a check, and a hook's `if` on a command, wait for this.
   */
  async ready(agentId: string): Promise<void> {
    await loadShellParser().catch((error: unknown) => this.grammarFailed(agentId, error));
  }

  /**
   * ready(), for a call that needs the grammar: a command. A path is judged without it, so the
   * first read_file of a run does not wait ~40 ms for a grammar it never uses (bench/overhead.ts).
   */
  async readyFor(agentId: string, tool: AnyTool, args: unknown, workspace: Workspace = this.workspace): Promise<void> {
    if (shellParserLoaded()) return;
    let kind: PermissionSubject["kind"];
    try {
      kind = tool.permissionSubject(args, workspace).kind;
    } catch {
      return; // a subject that cannot be placed is denied by check() without reading anything
    }
    if (kind === "command") await this.ready(agentId);
  }

  async check(call: PermissionCheck, signal: AbortSignal, hook?: PreToolHookAnswer): Promise<PermissionDecision> {
    const name = call.tool.name;
    const ws = call.workspace ?? this.workspace;
    const judged = await this.judge(call, ws);
    if ("denied" in judged) return judged.denied;
    const { subject, readOnly } = judged;
    const cmd = subject.kind === "command" ? subject : null;
    const command = cmd !== null;
    const ask = (rule: string, level: Exclude<SandboxRequest, "none"> = "workspace-write", personOnly = false) =>
      this.asker.ask({ call, subject, rule, signal, sandbox: command ? this.level(level) : undefined, personOnly });
    // Asked after the session's rules were checked: one added while it waits answers it.
    const askUncovered = (rule: string, level: Exclude<SandboxRequest, "none"> = "workspace-write") =>
      this.asker.ask({ call, subject, rule, signal, sandbox: command ? this.level(level) : undefined, releasable: true });
    const allowed = (by: DecidedBy, rule: string, level: Exclude<SandboxRequest, "none"> = "workspace-write") =>
      this.asker.allowed(call, by, rule, command ? this.level(level) : undefined);

    let unsure: string | undefined;
    for (const rule of this.deny) {
      const match = denyMatch(rule, name, subject);
      if (match === "yes") return this.asker.denied(call, "rule", `deny: ${rule.text}`, `denied by rule deny: ${rule.text}`);
      if (match === "unsure") unsure ??= `deny: ${rule.text} (cannot tell whether it applies: a word is only known at run time)`;
    }
    if (cmd && !unsure && this.deny.some((r) => r.tool(name))) {
      const why = analyseCommand(cmd.value).uncertain[0];
      if (why) unsure = `deny: ${this.deny.find((r) => r.tool(name))!.text} (cannot tell whether it applies: ${why})`;
    }

    if (cmd?.unsandboxed && this.sandbox.available) {
      if (this.mode === "plan") return this.asker.denied(call, "mode", "mode:plan", "plan mode runs every command in a read-only sandbox; none runs outside it");
      // Only a person's "always" for this very command outside the sandbox covers it.
      const exact = allowedBy(this.asker.session.filter((r) => r.exact), name, subject);
      if (exact) return this.asker.allowed(call, "rule", `allow: ${ruleTexts(exact)}`, "none");
      return this.asker.ask({ call, subject, rule: "sandbox: run outside the sandbox (network, writes anywhere)", signal, sandbox: "none", personOnly: true });
    }

    if (this.mode === "plan" && !cmd && !readOnly) {
      if (call.tool.readOnly(call.args)) return ask("mode:plan (its server says it only reads; orca cannot check that)");
      return this.asker.denied(call, "mode", "mode:plan", "plan mode: read-only tools only");
    }
    if (this.mode === "plan" && cmd) {
      if (hook?.decision === "ask") return ask(hook.rule, "read-only");
      if (unsure) return ask(unsure, "read-only");
      const approved = allowedBy(this.asker.session, name, subject);
      if (approved) return allowed("rule", `allow: ${ruleTexts(approved)}`, "read-only");
      const asked = this.askRules.find((r) => denyMatch(r, name, subject) !== "no");
      if (asked) return askUncovered(`ask: ${asked.text}`, "read-only");
      if (!this.sandbox.available) return askUncovered("mode:plan (no sandbox to keep the command read-only)", "read-only");
      const problem = autoApprovalProblem(analyseCommand(cmd.value), { workspace: ws, readDenied: (p) => this.readDenied(p), knownWordsOnly: false });
      if (problem) return askUncovered(`mode:plan (${problem})`, "read-only");
      return allowed("mode", "mode:plan", "read-only");
    }

    // The hook wants a person to look at this very call, whatever approvals and modes say.
    if (hook?.decision === "ask") return ask(hook.rule);
    if (unsure) return ask(unsure);
    if (this.mode === "bypass") return command ? allowed("mode", "mode:bypass") : silent("mode:bypass");

    const guarded = readOnly ? null : this.protectedWrite(call.tool, call.args, subject, ws);
    if (guarded) {
      const exact = allowedBy(this.asker.session.filter((r) => r.exact), name, subject);
      return exact ? allowed("rule", `allow: ${ruleTexts(exact)}`) : this.asker.ask({ call, subject, rule: guarded, signal, sandbox: command ? this.level("workspace-write") : undefined, exactOnly: true });
    }

    const approved = allowedBy(this.asker.session, name, subject);
    if (approved) return allowed("rule", `allow: ${ruleTexts(approved)}`);
    const asked = this.askRules.find((r) => denyMatch(r, name, subject) !== "no");
    if (asked) return askUncovered(`ask: ${asked.text}`);
    const byRule = allowedBy(this.allow, name, subject);
    if (byRule) return allowed("rule", `allow: ${ruleTexts(byRule)}`);
    // A chain may need both: `git status && node …/changed-files.mjs`.
    const bySkill = allowedBy([...(this.skills.get(call.agentId) ?? []), ...this.allow], name, subject);
    if (bySkill) return allowed("skill", `skill: ${ruleTexts(bySkill)}`);
    if (hook?.decision === "allow") return allowed("hook", hook.rule);

    const modeRule = `mode:${this.mode}`;
    if (cmd) {
      if (!readOnly) {
        const why = this.autoSandboxedProblem(cmd.value, ws);
        return why === null ? allowed("mode", `${modeRule} (sandboxed_commands: auto)`) : askUncovered(why ? `${modeRule} (${why})` : modeRule);
      }
      if (!this.sandbox.available) return askUncovered(`${modeRule} (no sandbox to run it read-only)`);
      const problem = autoApprovalProblem(analyseCommand(cmd.value), { workspace: ws, readDenied: (p) => this.readDenied(p), knownWordsOnly: true });
      if (problem) return askUncovered(`${modeRule} (${problem})`);
      return allowed("mode", modeRule, "read-only");
    }
    if (readOnly) return silent(modeRule);
    if (this.mode === "accept-edits" && subject.kind === "path") return silent(modeRule);
    return askUncovered(modeRule);
  }

  /**
   * Why this write must ask whatever the rules say: a protected path (file tools, MCP file tools),
   * or a path outside the workspace or hidden by a read_file deny rule that an MCP tool names.
   */
  private protectedWrite(tool: AnyTool, args: unknown, subject: Subject, ws: Workspace): string | null {
    if (subject.kind === "path") return protectedReason(subject.value, ws);
    // No sandbox keeps them read-only: a command that names one asks, whatever a prefix rule covers.
    if (subject.kind === "command") return this.sandbox.available ? null : protectedProblem(analyseCommand(subject.value), ws);
    if (subject.kind === "none") {
      const outside = outsidePaths(args, ws)[0];
      if (outside !== undefined) return `${tool.name} names a path outside the workspace: ${outside}`;
      for (const rel of namedPaths(args, ws)) {
        const reason = protectedReason(rel, ws);
        if (reason) return `${reason} (${tool.name} names it)`;
        const hidden = this.readDenied(rel);
        if (hidden) return `${tool.name} names ${rel}, whose content deny: ${hidden} hides`;
      }
    }
    return null;
  }

  /**
   * A PermissionRequest hook allowed the call with another input: a call nobody has been asked
   * about. It must be valid for the tool, and the deny and ask rules (and plan mode) judge it.
   */
  private async checkRewritten(call: PermissionCheck, input: Record<string, unknown>, hookRule: string, signal: AbortSignal): Promise<PermissionDecision> {
    const parsed = call.tool.params.safeParse(input);
    if (!parsed.success) return this.asker.invalidRewrite(call, hookRule, parsed.error);
    const rewritten: PermissionCheck = { ...call, args: parsed.data };
    const ws = call.workspace ?? this.workspace;
    const judged = this.subjectOf(call, rewritten.args, ws);
    if ("denied" in judged) return judged.denied;
    const { subject, readOnly } = judged;
    const name = call.tool.name;
    const command = subject.kind === "command";
    const level = command ? this.level(this.mode === "plan" ? "read-only" : "workspace-write") : undefined;
    let question: string | undefined;
    for (const rule of this.deny) {
      const match = denyMatch(rule, name, subject);
      if (match === "yes") return this.asker.denied(call, "rule", `deny: ${rule.text}`, `denied by rule deny: ${rule.text}`);
      if (match === "unsure") question ??= `deny: ${rule.text} (cannot tell whether it applies)`;
    }
    if (this.mode === "plan" && !command && !readOnly) return this.asker.denied(call, "mode", "mode:plan", "plan mode: read-only tools only");
    const personOnly = subject.kind === "command" && subject.unsandboxed === true && this.sandbox.available;
    if (personOnly && this.mode === "plan") return this.asker.denied(call, "mode", "mode:plan", "plan mode runs every command in a read-only sandbox; none runs outside it");
    if (personOnly) question = "sandbox: run outside the sandbox (network, writes anywhere)";
    if (!readOnly && this.mode !== "bypass") question ??= this.protectedWrite(call.tool, rewritten.args, subject, ws) ?? undefined;
    const asked = this.askRules.find((r) => denyMatch(r, name, subject) !== "no");
    if (asked) question ??= `ask: ${asked.text}`;
    const decision = question
      ? await this.asker.askApprover({ call: rewritten, subject, rule: question, signal, sandbox: personOnly ? "none" : level, personOnly, exactOnly: true })
      : this.asker.allowed(call, "hook", hookRule, level);
    return decision.allowed ? { ...decision, args: rewritten.args } : decision;
  }

  /**
   * subjectOf for check(): a command is judged once the grammar has loaded, since whether it only
   * reads is itself read with the grammar; a path or an MCP call is judged at once, without it.
   */
  private async judge(call: PermissionCheck, ws: Workspace): Promise<ReturnType<Permissions["subjectOf"]>> {
    const judged = this.subjectOf(call, call.args, ws);
    if ("denied" in judged || judged.subject.kind !== "command" || shellParserLoaded()) return judged;
    await this.ready(call.agentId);
    return this.subjectOf(call, call.args, ws);
  }

  /**
   * What the call acts on and whether it only reads (a claim orca cannot check, an MCP server's,
   * does not count); a call the tool cannot place (a path outside every root) is denied.
   */
  private subjectOf(call: PermissionCheck, args: PermissionCheck["args"], ws: Workspace): { subject: Subject; readOnly: boolean } | { denied: PermissionDecision } {
    try {
      return { subject: call.tool.permissionSubject(args, ws), readOnly: call.tool.readOnlyClaimed !== true && call.tool.readOnly(args) };
    } catch (error) {
      return { denied: this.asker.denied(call, "rule", "workspace", errorLine(error)) };
    }
  }

  private grammarReported = false;

  /** Said once: without the grammar every command is uncertain, so commands ask. */
  private grammarFailed(agentId: string, error: unknown): void {
    if (this.grammarReported) return;
    this.grammarReported = true;
    this.emit({ type: "error", agentId, where: "permissions", message: `the shell grammar did not load (${errorLine(error)}): every command asks` });
  }

  /** Whether sandboxed_commands: auto is in force now: a sandbox with no network, in a mode it applies to. */
  autoSandboxed(): boolean {
    return sandboxedCommandsAuto(this.sandboxedCommands, this.mode) && this.sandbox.available && this.sandbox.status?.network === "off";
  }

  /**
   * Null when a command that may write runs unasked (sandboxed_commands: auto, in the no-network
   * workspace-write sandbox, naming nothing outside the workspace, protected or denied); else why
   * not ("" when auto is simply not on).
   */
  private autoSandboxedProblem(command: string, ws: Workspace): string | null {
    if (!this.autoSandboxed()) return "";
    const analysis = analyseCommand(command);
    if (analysis.uncertain.length) return `sandboxed_commands: auto, but ${analysis.uncertain[0]}`;
    const problem = autoApprovalProblem(analysis, { workspace: ws, readDenied: (p) => this.readDenied(p), knownWordsOnly: true }) ?? protectedProblem(analysis, ws);
    return problem ? `sandboxed_commands: auto, but it ${problem.startsWith("names") || problem.startsWith("prints") ? problem : `names ${problem}`}` : null;
  }

  /** The sandbox a command allowed at `wanted` runs in here. */
  private level(wanted: Exclude<SandboxRequest, "none">): SandboxRequest {
    return sandboxFor(wanted, this.sandbox.available);
  }
}

/** A tool other than bash allowed by the mode: no event (a command's always has one, for its sandbox). */
function silent(rule: string): PermissionDecision {
  return { allowed: true, by: "mode", rule };
}

function ruleTexts(rules: readonly Rule[]): string {
  return rules.map((r) => r.text).join(" + ");
}
