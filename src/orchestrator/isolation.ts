import path from "node:path";
import { toolFinished } from "../events/constructors.js";
import type { EmitFn } from "../events/types.js";
import { contentHash } from "../tools/file-version.js";
import type { Permissions } from "../tools/permissions/engine.js";
import { protectedReason } from "../tools/permissions/protected-paths.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { FileVersions } from "../tools/versions.js";
import { CancelledError, type Scheduler } from "../tools/scheduler.js";
import { Workspace } from "../tools/workspace.js";
import { errorLine } from "../util/text.js";
import type { MergeOutcome } from "../worktrees/merge.js";
import { WorktreeManager } from "../worktrees/worktree.js";
import type { SessionDeps } from "./session-deps.js";
import type { AgentState } from "./agents.js";

/**
 * `isolation: worktree` for a sub-agent's run: `enter` gives it its own git worktree and a
 * Workspace inside it (its file tools, bash and scheduler paths follow), `leave` commits its work
 * and, when it ended done, merges it into the main tree through the scheduler (a write of every
 * file it changed, so no in-flight edit of the same file interleaves). A conflict is reported,
 * never resolved: nothing is applied and the branch stays.
 */
export class Isolation {
  private merges = 0;

  constructor(
    private readonly deps: {
      manager: WorktreeManager;
      /** The main workspace. */
      workspace: Workspace;
      scheduler: Scheduler;
      emit: EmitFn;
      /** The session's read versions: the merge's writes are recorded like write_file's. */
      versions?: FileVersions;
      /**
       * Asks about one protected path the merge would write, as write_file's permission check does
       * (a person decides; headless refuses). Null when allowed, else why not.
       */
      approveProtected?: (agent: AgentState, relative: string, signal: AbortSignal) => Promise<string | null>;
      /**
       * `review: ask` (the agent's, else config's agents.review): its merge waits for a person's
       * acceptance (`accept`). `person` false (headless): nobody can accept, so it is refused.
       */
      review?: { ask(agent: AgentState): boolean; person: boolean };
    },
  ) {}

  /** Isolated agents that ended done and wait for a person to accept their merge (review: ask). */
  private readonly held = new Map<string, AgentState>();

  heldForReview(): string[] {
    return [...this.held.keys()];
  }

  /** A person accepted a held agent's work: merged now, exactly as it would have been when it ended. */
  async accept(agentId: string, signal: AbortSignal): Promise<{ note: string; conflict: boolean } | null> {
    const agent = this.held.get(agentId);
    if (!agent) return null;
    this.held.delete(agentId);
    return this.leave(agent, "done", signal, true);
  }

  /** Null when the agent may run (isolated, or sharing the workspace with a notice); else why not. */
  async enter(agent: AgentState, signal: AbortSignal): Promise<string | null> {
    if (agent.definition.isolation !== "worktree") return null;
    const base = { agentId: agent.id, parentId: agent.parentId };
    let opened;
    try {
      opened = await this.deps.manager.open(agent.id, signal);
    } catch (error) {
      if (signal.aborted) return "cancelled before it started";
      const message = `could not create its git worktree: ${errorLine(error)}`;
      this.deps.emit({ ...base, type: "worktree", action: "failed", message });
      return message;
    }
    if ("unavailable" in opened) {
      agent.workspace = undefined;
      this.deps.emit({ ...base, type: "worktree", action: "unavailable", message: `isolation: worktree is not possible (${opened.unavailable}); it shares the workspace` });
      return null;
    }
    const wt = opened.worktree;
    agent.worktree = wt;
    agent.workspace = new Workspace(wt.workspaceRoot, this.deps.workspace.additionalDirs, this.deps.workspace.guarded);
    const how = opened.reused ? "continues in its git worktree" : "works in its own git worktree";
    const note = "note" in opened && opened.note ? `; ${opened.note}` : "";
    this.deps.emit({ ...base, type: "worktree", action: "created", path: wt.path, branch: wt.branch, message: `${how} ${wt.path} (branch ${wt.branch})${note}` });
    return null;
  }

  /** Commits the agent's work and merges it when it ended done; lines for its delegate result. */
  async leave(agent: AgentState, status: string, signal: AbortSignal, accepted = false): Promise<{ note: string; conflict: boolean }> {
    const wt = agent.worktree;
    if (!wt) return { note: "", conflict: false };
    const base = { agentId: agent.id, parentId: agent.parentId, path: wt.path, branch: wt.branch };
    const hold = status === "done" && !accepted && (this.deps.review?.ask(agent) ?? false);
    const merge = status === "done" && !hold;
    const byHand = `to apply it by hand: git diff ${wt.base.slice(0, 12)} ${wt.branch} | git apply --3way`;
    let result;
    try {
      result = await this.deps.manager.finish(wt, {
        message: `orca: work of ${agent.id}${agent.label ? ` (${agent.label})` : ""}`,
        merge,
        labels: { ours: "main", theirs: agent.id },
        withPaths: (paths, fn) => this.scheduled(agent, paths, fn, signal),
        vet: (files) => this.vet(agent, files, signal),
        // Logged before the temporary file exists, like write_file's: the next start removes one a crash left.
        announce: (plan, temp) => {
          // Both versions are kept: the merge can be diffed, and undone, like a write_file.
          if (plan.before.kind !== "missing") this.deps.versions?.contents?.keep(plan.before.bytes);
          this.deps.versions?.contents?.keep(plan.write.bytes);
          this.deps.emit({
            type: "file_write",
            agentId: agent.id,
            tool: "merge_worktree",
            path: this.deps.workspace.relative(plan.path),
            before: plan.before.kind === "missing" ? null : contentHash(plan.before.bytes),
            after: contentHash(plan.write.bytes),
            temp: this.deps.workspace.relative(temp),
          });
        },
        wrote: (file, bytes, before) => {
          const hash = bytes ? contentHash(bytes) : null;
          this.deps.versions?.recordChange(agent.id, file, hash, "write_file", hash ? { hash } : null);
          // A deletion has no file_write (no temporary file): it is logged here, once done.
          if (!hash && before.kind !== "missing") {
            this.deps.versions?.contents?.keep(before.bytes);
            this.deps.emit({ type: "file_changed", agentId: agent.id, parentId: agent.parentId, tool: "merge_worktree", path: this.deps.workspace.relative(file), before: contentHash(before.bytes), after: null });
          }
        },
      });
    } catch (error) {
      const message = error instanceof CancelledError || signal.aborted ? "the merge was cancelled" : `git failed: ${errorLine(error)}`;
      this.deps.emit({ ...base, type: "worktree", action: "failed", message: `${message}; worktree kept` });
      return { note: `worktree: NOT merged (${message}). Branch ${wt.branch} in ${wt.path} keeps the work; ${byHand}`, conflict: true };
    }
    const rel = (files: string[]) => files.map((f) => this.deps.workspace.relative(path.join(wt.repo, f)));
    if (hold) return this.hold(agent, base);
    if (!merge) {
      const message = `worktree kept: ${wt.path} (branch ${wt.branch}); it ended ${status}, nothing was merged`;
      this.deps.emit({ ...base, type: "worktree", action: "kept", message });
      return { note: `worktree: not merged (it ended ${status}); branch ${wt.branch} in ${wt.path} keeps its work. Resuming it continues there and merges when it ends done.`, conflict: false };
    }
    if (result.conflicts.length || result.outside.length || result.refused.length) {
      const files = rel([...result.conflicts, ...result.outside, ...result.refused.map((r) => r.path)]);
      const why = [
        result.conflicts.length ? `conflicts with the main tree in ${rel(result.conflicts).join(", ")}` : "",
        result.outside.length ? `changes outside the workspace: ${result.outside.join(", ")}` : "",
        ...result.refused.map((r) => `${rel([r.path])[0]}: ${r.why}`),
      ].filter(Boolean).join("; ");
      this.deps.emit({ ...base, type: "worktree", action: "conflict", files, message: `not merged: ${why}; branch ${wt.branch} kept` });
      return {
        note: `worktree: NOT merged — ${why}. Nothing was applied to the main tree; orca does not resolve conflicts. Branch ${wt.branch} (worktree ${wt.path}) keeps the work; ${byHand}`,
        conflict: true,
      };
    }
    await this.deps.manager.remove(wt).catch(() => undefined);
    agent.worktree = undefined;
    const files = rel(result.applied);
    const message = files.length ? `merged into the main tree: ${files.join(", ")}` : "no changes to merge";
    this.deps.emit({ ...base, type: "worktree", action: "merged", files, message: `${message}; worktree removed` });
    return { note: `worktree: ${message} (worktree removed)`, conflict: false };
  }

  /** review: ask — the work stays on its branch until a person accepts it (never, headless). */
  private hold(agent: AgentState, base: { agentId: string; parentId?: string; path: string; branch: string }): { note: string; conflict: boolean } {
    const person = this.deps.review?.person ?? false;
    if (person) this.held.set(agent.id, agent);
    const message = person
      ? `held for review (review: ask): nothing merged until you accept it in /review; branch ${base.branch} keeps the work`
      : `not merged: review: ask holds the merge for a person's acceptance, and a headless run has none; branch ${base.branch} kept`;
    this.deps.emit({ ...base, type: "worktree", action: "kept", message });
    return { note: `worktree: NOT merged — ${message} (worktree ${base.path}).`, conflict: !person };
  }

  /** Protected paths among the merge's files go to the permission check, one by one, as write_file's would. */
  private async vet(agent: AgentState, files: string[], signal: AbortSignal): Promise<Array<{ path: string; why: string }>> {
    const refused: Array<{ path: string; why: string }> = [];
    for (const file of files) {
      const relative = this.deps.workspace.relative(file);
      const reason = protectedReason(relative);
      if (!reason) continue;
      const denied = this.deps.approveProtected ? await this.deps.approveProtected(agent, relative, signal) : reason;
      if (denied !== null) refused.push({ path: file, why: `${reason.split(" — ")[0]}, not written (${denied})` });
    }
    return refused;
  }

  /** The merge as one scheduled call of the agent's, shown in its pane like a tool call. */
  private async scheduled(agent: AgentState, paths: string[], fn: () => Promise<MergeOutcome>, signal: AbortSignal): Promise<MergeOutcome> {
    const callId = `merge-${agent.id}-${++this.merges}`;
    const files = paths.map((p) => this.deps.workspace.relative(p));
    const call = { callId, agentId: agent.id, parentId: agent.parentId, name: "merge_worktree", args: { files }, access: { reads: [], writes: paths } };
    const startedAt = Date.now();
    let ok = false;
    let content = "";
    let error: string | undefined;
    try {
      const value = await this.deps.scheduler.run(call, fn, signal);
      const refused = [...value.conflicts, ...value.outside, ...value.refused.map((r) => r.path)];
      ok = refused.length === 0;
      if (ok) content = `merged ${value.applied.length} file${value.applied.length === 1 ? "" : "s"}`;
      else error = `not merged: ${refused.join(", ")}`;
      return value;
    } catch (e) {
      error = errorLine(e);
      throw e;
    } finally {
      if (!ok) content = `Error: ${error}`;
      this.deps.emit(toolFinished({ agentId: agent.id, parentId: agent.parentId }, { callId, name: call.name }, { status: ok ? "ok" : "error", content, error, durationMs: Date.now() - startedAt }));
    }
  }
}

/** A merge-back's write of a protected path, judged as write_file's would be: null when allowed, else why not. */
export async function approveMergeWrite(registry: ToolRegistry, permissions: Permissions, agent: AgentState, relative: string, signal: AbortSignal): Promise<string | null> {
  const tool = registry.get("write_file");
  if (!tool) return "there is no write_file tool to judge it";
  const call = { callId: `merge-${agent.id}-${relative}`, agentId: agent.id, parentId: agent.parentId, agentName: agent.definition.name, tool, args: { path: relative, content: "" } };
  const decision = await permissions.check(call, signal);
  return decision.allowed ? null : decision.reason;
}

/** The session's worktree isolation, or null when it has no worktree folder (isolation: worktree is then refused). */
export function sessionIsolation(o: {
  deps: Pick<SessionDeps, "worktreeDir" | "workspace" | "config" | "approver">;
  sessionId: string;
  scheduler: Scheduler;
  emit: EmitFn;
  versions: FileVersions;
  registry: ToolRegistry;
  permissions: Permissions;
}): Isolation | null {
  const { deps, permissions } = o;
  if (!deps.worktreeDir) return null;
  return new Isolation({
    manager: new WorktreeManager({ dir: deps.worktreeDir, sessionId: o.sessionId, workspace: deps.workspace, readDenied: (rel) => permissions.readDenied(rel) !== undefined }),
    workspace: deps.workspace,
    scheduler: o.scheduler,
    emit: o.emit,
    versions: o.versions,
    approveProtected: (agent, relative, signal) => approveMergeWrite(o.registry, permissions, agent, relative, signal),
    review: { ask: (agent) => (agent.definition.review ?? deps.config.agents.review) === "ask", person: deps.approver.decidedBy !== "headless" },
  });
}
