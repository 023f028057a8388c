import type { AgentOutcome } from "../agent/loop.js";
import type { ToolResult } from "../tools/tool.js";
import type { FileVersions } from "../tools/versions.js";
import type { Workspace } from "../tools/workspace.js";
import { raceAbort } from "../util/race-abort.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import { conflictReport } from "./conflict-report.js";

const RESULT_LIMIT = 20_000;

/** How a background sub-agent's result opens in its parent's mailbox (the dashboard shows it as a notice, not a user turn). */
export const BACKGROUND_RESULT = /^\[background sub-agent (\S+) ended\]\n/;

export interface ChildOutcome extends AgentOutcome {
  /** What became of its worktree (merged, conflict, kept), for the parent. */
  worktreeNote?: string;
  /** Its work could not be merged: the parent must look. */
  conflict?: boolean;
  /** What the log shows it changed and ran, and the flags where its answer does not match. */
  evidence?: string;
}

/** A sub-agent run started by delegate, from launch until its result is handed over. */
export interface Child {
  agent: AgentState;
  parent: AgentState;
  /** Its result goes to the parent's mailbox, not to a waiting delegate call. */
  background: boolean;
  /** Settles when the run (worktree merge included) has ended. */
  done: Promise<ChildOutcome>;
  /** Moves a waiting foreground delegate call on at once (Ctrl+B). */
  release?: () => void;
  /** wait_agents calls joining it: while there is one, they get the result, the mailbox does not. */
  claims: number;
  /** The write conflicts it had met before this run, so its result lists only this run's. */
  conflictsFrom: number;
}

/**
 * The sub-agents that run and the results of those that ended: where a background result goes
 * (its parent's mailbox, unless a wait_agents call is joining it), and what agent_status and
 * wait_agents report.
 */
export class ChildResults {
  private readonly live = new Map<string, Child>();
  /** The last result of each sub-agent that ended, as its parent reads it. */
  private readonly ended = new Map<string, string>();

  constructor(
    private readonly deps: {
      agents: AgentRegistry;
      workspace: Workspace;
      /** For the write conflicts a sub-agent met, listed in its result so the parent can re-plan. */
      versions: FileVersions;
      isAncestor(ancestorId: string, agent: AgentState): boolean;
    },
  ) {}

  launch(agent: AgentState, parent: AgentState, background: boolean, run: Promise<ChildOutcome>): Child {
    const child: Child = { agent, parent, background, claims: 0, conflictsFrom: this.deps.versions.conflictCount(agent.id), done: Promise.resolve(undefined as never) };
    this.live.set(agent.id, child);
    child.done = run
      .catch((error: unknown): ChildOutcome => {
        agent.status = "failed";
        const result = `internal error in sub-agent ${agent.id}: ${error instanceof Error ? error.message : String(error)}`;
        return { status: "failed", result, answer: "", steps: 0, usage: { input: 0, output: 0, cached: 0 }, filesChanged: [] };
      })
      .then((outcome) => {
        this.settle(child, outcome);
        return outcome;
      });
    return child;
  }

  running(id: string): Child | undefined {
    return this.live.get(id);
  }

  /** Every running sub-agent started by `parent`. */
  runningOf(parent: AgentState): Child[] {
    return [...this.live.values()].filter((c) => c.parent === parent);
  }

  /** The background sub-agents whose results `parent` still waits for. */
  pendingOf(parent: AgentState): Child[] {
    return this.runningOf(parent).filter((c) => c.background);
  }

  private settle(child: Child, outcome: ChildOutcome): void {
    const { agent, parent } = child;
    this.live.delete(agent.id);
    const text = this.format(child, outcome);
    this.ended.set(agent.id, text);
    if (child.background && child.claims === 0) parent.mailbox.post({ text: `[background sub-agent ${agent.id} ended]\n${text}`, resultOf: agent.id });
    // A parent asleep on this one looks again at what it still waits for.
    parent.mailbox.nudge();
  }

  /** The result a parent reads: status, numbers, files, what became of its worktree, the answer. */
  format(child: Child, outcome: ChildOutcome): string {
    const { agent } = child;
    const workspace = agent.workspace ?? this.deps.workspace;
    const files = [...agent.filesChanged].map((f) => workspace.relative(f));
    let result = outcome.result.trim() || "(no answer)";
    if (result.length > RESULT_LIMIT) result = `${result.slice(0, RESULT_LIMIT)}\n… (${result.length - RESULT_LIMIT} more characters cut)`;
    return [
      `agent: ${agent.id} (${agent.definition.name}${agent.label ? `, "${agent.label}"` : ""})`,
      `status: ${outcome.status}`,
      `steps: ${outcome.steps} · tokens: ${outcome.usage.input} in, ${outcome.usage.output} out`,
      `files changed: ${files.length ? files.join(", ") : "none"}`,
      ...conflictReport(this.deps.versions, agent.id, child.conflictsFrom),
      outcome.worktreeNote ?? "",
      outcome.status === "done" ? "" : `(resume it with delegate {"resume": "${agent.id}", "task": "…"})`,
      "--- answer ---",
      result,
      outcome.evidence ?? "",
    ]
      .filter((line) => line !== "")
      .join("\n");
  }

  status(callerId: string, id: string | undefined): ToolResult {
    const mine = this.deps.agents.all().filter((a) => this.deps.isAncestor(callerId, a));
    if (id === undefined) {
      if (!mine.length) return { ok: true, content: "no sub-agents yet" };
      return { ok: true, content: mine.map((a) => this.line(a)).join("\n") };
    }
    const agent = mine.find((a) => a.id === id);
    if (!agent) return refusal(`no sub-agent "${id}" of yours`);
    const ended = agent.status === "running" ? undefined : this.ended.get(agent.id);
    return { ok: true, content: ended ? `${this.line(agent)}\n${ended}` : this.line(agent) };
  }

  private line(a: AgentState): string {
    const flags = [a.background ? "background" : "", a.waiting ? "waiting for its own background sub-agents" : "", a.worktree ? `worktree ${a.worktree.path}` : ""].filter(Boolean);
    const numbers = a.status === "running" ? "" : ` · ${a.steps} steps · ${a.usage.input + a.usage.output} tokens`;
    return `${a.id} (${a.definition.name}${a.label ? `, "${a.label}"` : ""}): ${a.status}${flags.length ? ` · ${flags.join(" · ")}` : ""}${numbers}`;
  }

  async wait(callerId: string, ids: string[], timeoutMs: number, signal: AbortSignal): Promise<ToolResult> {
    const caller = this.deps.agents.get(callerId);
    if (!caller) return refusal(`unknown calling agent ${callerId}`);
    const targets = ids.length ? [...new Set(ids)] : [...this.live.values()].filter((c) => c.parent === caller && c.background).map((c) => c.agent.id);
    if (!targets.length) return { ok: true, content: "no background sub-agent of yours is running" };
    const unknown = targets.filter((id) => {
      const agent = this.deps.agents.get(id);
      return !agent || !this.deps.isAncestor(callerId, agent);
    });
    if (unknown.length) return refusal(`no sub-agent of yours named ${unknown.join(", ")}`);

    const joining = targets.map((id) => this.live.get(id)).filter((c): c is Child => c !== undefined);
    for (const child of joining) child.claims++;
    let timer: NodeJS.Timeout | undefined;
    let outcome: "ended" | "timeout" | "cancelled";
    try {
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
      const all = Promise.all(joining.map((c) => c.done)).then(() => "ended" as const);
      outcome = await raceAbort(Promise.race([all, timeout]), signal, () => "cancelled" as const);
    } finally {
      clearTimeout(timer);
      for (const child of joining) child.claims--;
    }
    if (outcome === "cancelled") return { ok: false, status: "cancelled", error: "cancelled", content: "cancelled while waiting" };
    const parts = targets.map((id) => {
      if (this.live.has(id)) return `--- ${id}: still running (its result comes as a message when it ends) ---`;
      // Returned here: not delivered a second time as a message.
      caller.mailbox.withdraw(id);
      return `--- ${id} ---\n${this.ended.get(id) ?? "(ended; no result recorded)"}`;
    });
    const head = outcome === "timeout" ? `timed out after ${Math.round(timeoutMs / 1000)} s; ` : "";
    const left = targets.filter((id) => this.live.has(id)).length;
    return { ok: true, content: `${head}${targets.length - left} of ${targets.length} ended\n${parts.join("\n")}` };
  }
}

function refusal(message: string): ToolResult {
  return { ok: false, error: message, content: `Error: ${message}` };
}
