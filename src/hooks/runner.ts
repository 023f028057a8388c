import crypto from "node:crypto";
import { processRecorder, type ProcessRecorder } from "../events/processes.js";
import type { HookEventName } from "../config/hooks.js";
import type { EmitFn } from "../events/types.js";
import { decisionOf } from "./aggregate.js";
import { hookCommandLine, type ConfiguredHook } from "./config.js";
import { TOOL_EVENTS, UNMATCHED_EVENTS, orcaRule } from "./names.js";
import { interpretHookResult, type HookProcessResult, type HookVerdict } from "./output.js";
import { runHookProcess, type WrapCommand } from "./process.js";
import type { SpawnSpec } from "../util/process-group.js";

/**
 * Runs the hooks of one occurrence of an event: picks those whose matcher matches, runs each once
 * (identical handlers listed twice run once), all in parallel, each with its own timeout, and
 * emits hook_started / hook_finished for every run. Returns one verdict per hook run, in
 * configuration order, for the event's aggregation.
 */

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Claude Code's own defaults where an event has a shorter one: a prompt waits, an exit must not hang. */
const EVENT_TIMEOUT_MS: Partial<Record<HookEventName, number>> = { UserPromptSubmit: 30_000, SessionEnd: 1_500 };

/** A hook's timeout: its own, else its event's default. */
export function timeoutFor(hook: Pick<ConfiguredHook, "event" | "timeoutMs">, defaultMs = DEFAULT_TIMEOUT_MS): number {
  return hook.timeoutMs ?? EVENT_TIMEOUT_MS[hook.event] ?? defaultMs;
}

export interface HookRunnerOptions {
  hooks: readonly ConfiguredHook[];
  /** The project root: the hooks' working directory and $CLAUDE_PROJECT_DIR / $ORCA_PROJECT_DIR. */
  projectDir: string;
  /** The environment hooks inherit (orca's own, minus its model key). */
  env: NodeJS.ProcessEnv;
  emit: EmitFn;
  /** The command sandbox's wrapper, when one is configured. */
  wrap?: WrapCommand;
  defaultTimeoutMs?: number;
}

export interface RunOccurrence {
  event: HookEventName;
  /** What the matcher is compared with: a tool's orca and Claude Code names, a source, an agent type. */
  matchValues: readonly string[];
  /** The JSON sent on stdin. */
  payload: Record<string, unknown>;
  agentId: string;
  parentId?: string;
  callId?: string;
  signal?: AbortSignal;
  /** A cap on every hook's timeout: the shutdown path's short deadline. */
  maxTimeoutMs?: number;
  /**
   * Evaluates a handler's `if` rule (already in orca's names, `bash(rm *)`) against the tool call,
   * with orca's permission-rule matcher. Absent: a hook with `if` runs anyway (Claude Code also
   * runs it when it cannot evaluate the rule).
   */
  ruleMatches?(rule: string): boolean;
}

export interface HookRun {
  hook: ConfiguredHook;
  verdict: HookVerdict;
}

export class HookRunner {
  private readonly byEvent = new Map<HookEventName, ConfiguredHook[]>();
  private readonly live = new Set<number>();
  /** Every occurrence still running, awaited or not: the shutdown path waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private wrap: WrapCommand | undefined;

  /** Hook process groups, in the session log: a crash must not leave one running unnoticed. */
  private readonly processes: ProcessRecorder;

  constructor(private readonly opts: HookRunnerOptions) {
    this.wrap = opts.wrap;
    this.processes = processRecorder(opts.emit, () => "");
    for (const hook of opts.hooks) {
      const list = this.byEvent.get(hook.event) ?? [];
      list.push(hook);
      this.byEvent.set(hook.event, list);
    }
  }

  /** Whether any hook is configured for `event`: the callers' fast path when none is. */
  has(event: HookEventName): boolean {
    return this.byEvent.has(event);
  }

  /** The hooks one occurrence runs: matched, `if`-filtered, each handler once. */
  select(occurrence: Pick<RunOccurrence, "event" | "matchValues" | "ruleMatches">): ConfiguredHook[] {
    const seen = new Set<string>();
    const selected: ConfiguredHook[] = [];
    for (const hook of this.byEvent.get(occurrence.event) ?? []) {
      if (!UNMATCHED_EVENTS.has(occurrence.event) && !hook.match(occurrence.matchValues)) continue;
      if (hook.if !== undefined) {
        if (!TOOL_EVENTS.has(occurrence.event)) continue;
        if (occurrence.ruleMatches && !occurrence.ruleMatches(orcaRule(hook.if))) continue;
      }
      if (seen.has(hook.key)) continue;
      seen.add(hook.key);
      selected.push(hook);
    }
    return selected;
  }

  async run(occurrence: RunOccurrence): Promise<HookRun[]> {
    const hooks = this.select(occurrence);
    if (!hooks.length) return [];
    const input = JSON.stringify(occurrence.payload);
    const running = Promise.all(hooks.map(async (hook) => ({ hook, verdict: await this.runOne(hook, input, occurrence) })));
    this.inFlight.add(running);
    try {
      return await running;
    } finally {
      this.inFlight.delete(running);
    }
  }

  /** The command sandbox's wrapper, set once the sandbox is open; undefined runs hooks unwrapped. */
  setWrap(wrap: WrapCommand | undefined): void {
    this.wrap = wrap;
  }

  /** Resolves when every hook running now has finished, or after `deadlineMs`, whichever is first. */
  async idle(deadlineMs: number): Promise<void> {
    if (!this.inFlight.size) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
    clearTimeout(timer);
  }

  /** Process exit: SIGKILL every hook still running, synchronously. */
  killAllSync(): void {
    for (const pgid of this.live) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    this.live.clear();
  }

  private async runOne(hook: ConfiguredHook, input: string, occurrence: RunOccurrence): Promise<HookVerdict> {
    const { event, agentId, parentId, callId } = occurrence;
    const hookId = crypto.randomBytes(4).toString("hex");
    const command = hookCommandLine(hook);
    const timeoutMs = Math.min(timeoutFor(hook, this.opts.defaultTimeoutMs), occurrence.maxTimeoutMs ?? Infinity);
    this.opts.emit({ type: "hook_started", agentId, parentId, hookId, hookEvent: event, command, source: hook.source.path, ...(callId ? { callId } : {}) });
    const startedAt = performance.now();
    let result: HookProcessResult;
    try {
      const spec = this.spawnSpec(hook);
      // The user's own hooks run as the user; a workspace's (or one of unknown origin) in the sandbox.
      const wrap = hook.origin === "user" ? undefined : this.wrap;
      result = await runHookProcess(wrap ? await wrap(spec) : spec, {
        input,
        timeoutMs,
        signal: occurrence.signal,
        track: (pgid, live) => {
          if (live) {
            this.live.add(pgid);
            this.processes.started({ pgid, kind: "hook", command, agentId, parentId });
          } else {
            this.live.delete(pgid);
            this.processes.ended(pgid);
          }
        },
      });
    } catch (error) {
      // A sandbox that cannot wrap, a spawn that throws: this hook failed, the action goes on.
      result = { exitCode: null, stdout: "", stderr: "", timedOut: false, cancelled: false, spawnError: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
    }
    const verdict = interpretHookResult(event, result);
    if (verdict.outcome === "timeout") verdict.warning = `timed out after ${formatSeconds(timeoutMs)} and was killed`;
    if (verdict.outcome === "cancelled") verdict.warning = "cancelled";
    const { decision, message } = decisionOf(event, verdict);
    this.opts.emit({
      type: "hook_finished",
      agentId,
      parentId,
      hookId,
      hookEvent: event,
      command,
      ...(callId ? { callId } : {}),
      exitCode: result.exitCode,
      durationMs: Math.round(performance.now() - startedAt),
      outcome: verdict.outcome,
      decision,
      ...(message ? { message: oneLine(message) } : {}),
      ...(verdict.output?.systemMessage ? { systemMessage: verdict.output.systemMessage } : {}),
    });
    return verdict;
  }

  /**
   * Shell form (`bash --norc -c COMMAND`) unless the handler has `args`: then exec form, the command
   * spawned directly with `${CLAUDE_PROJECT_DIR}`-style placeholders replaced as plain strings.
   */
  private spawnSpec(hook: ConfiguredHook): SpawnSpec {
    const dir = this.opts.projectDir;
    const env: NodeJS.ProcessEnv = { ...this.opts.env, CLAUDE_PROJECT_DIR: dir, ORCA_PROJECT_DIR: dir };
    // --norc: with its stdin a socket (Node's pipes are socketpairs) and no SHLVL, bash would take
    // itself for an rsh session and source ~/.bashrc into every hook.
    if (hook.args === undefined) return { file: "bash", args: ["--norc", "-c", hook.command], cwd: dir, env };
    const place = (s: string) => s.replace(/\$\{(CLAUDE_PROJECT_DIR|ORCA_PROJECT_DIR)\}/g, dir);
    return { file: place(hook.command), args: hook.args.map(place), cwd: dir, env };
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function oneLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}
