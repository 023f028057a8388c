import type { AgentStatus, EmitFn } from "../events/types.js";
import type { Approver } from "../tools/approver.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import type { DelegateArgs } from "./delegate.js";
import { scopeOverlap } from "./scope-overlap.js";
import { blockersOf, describeTask, type Task, type TaskBoard, type TaskStatus } from "./task-board.js";

export type OverlapPolicy = "warn" | "ask" | "refuse";

export interface TaskDelegationDeps {
  board: TaskBoard;
  agents: AgentRegistry;
  workspaceRoot: string;
  /** agents.on_overlap. */
  onOverlap: OverlapPolicy;
  approver: Approver;
  emit: EmitFn;
}

/** A delegate call naming a board task: refused, or let through with what its caller must hear and the owner to record. */
export type TaskClaim = { refused: string } | { note: string; taskText: string; bind(agent: AgentState): void };

/**
 * What a delegation of a board task (delegate {task_id}) must pass before a sub-agent starts: the
 * task exists and is not already being worked on or done, every task it depends on is done, and
 * its scope does not meet a running task's — or, when it does, agents.on_overlap lets it through
 * (warn: the result says so; ask: the person said yes; refuse: never).
 */
export async function claimTask(deps: TaskDelegationDeps, parent: AgentState, args: DelegateArgs, callId: string, signal: AbortSignal): Promise<TaskClaim> {
  const id = args.task_id!;
  const { board } = deps;
  const task = board.get(id);
  if (!task) return { refused: `no task ${id} on the board (task_list shows them)` };
  if (task.status === "done") return { refused: `task ${describeTask(task)} is done already; task_update its status to pending to have it done again` };
  const owner = task.owner ? deps.agents.get(task.owner) : undefined;
  if (task.status === "in_progress" && owner?.status === "running" && owner.id !== args.resume) {
    return { refused: `task ${describeTask(task)} is being worked on by ${owner.id}; message_agent steers it` };
  }
  const blockers = blockersOf(board.state, task);
  if (blockers.length) {
    const what = blockers.map((b) => (b.task ? describeTask(b.task) : `${b.id} (not on the board)`)).join(", ");
    return { refused: `task ${task.id} "${task.title}" cannot be delegated yet: it depends on ${what}, not done. Delegate it once they are done (task_list shows the board).` };
  }
  const notes: string[] = [];
  for (const other of board.state.tasks) {
    const otherOwner = other.owner ? deps.agents.get(other.owner) : undefined;
    if (other.id === task.id || other.status !== "in_progress" || otherOwner?.status !== "running") continue;
    const files = await scopeOverlap(deps.workspaceRoot, task.scope, other.scope, signal);
    if (!files.length) continue;
    const decided = await decideOverlap(deps, parent, args, callId, task, other, otherOwner, files, signal);
    if (decided.refused) return { refused: decided.refused };
    notes.push(decided.note);
  }
  const taskText =
    `${args.task}\n\n[This is task ${task.id} "${task.title}" of the team's board${task.scope.length ? `; its scope: ${task.scope.join(" ")}` : ""}. ` +
    "my_task shows it; my_task_update sets its status and notes.]";
  return {
    note: notes.join("\n"),
    taskText,
    bind: (agent) => {
      board.update(parent.id, task.id, { owner: agent.id, status: "in_progress" }, "orca");
    },
  };
}

async function decideOverlap(
  deps: TaskDelegationDeps,
  parent: AgentState,
  args: DelegateArgs,
  callId: string,
  task: Task,
  other: Task,
  otherOwner: AgentState,
  files: string[],
  signal: AbortSignal,
): Promise<{ refused?: string; note: string }> {
  const where = `task ${task.id}'s scope overlaps task ${other.id} "${other.title}", which ${otherOwner.id} is working on: ${files.join(", ")}`;
  const event = { type: "task_overlap" as const, agentId: parent.id, parentId: parent.parentId, taskId: task.id, otherTaskId: other.id, otherAgentId: otherOwner.id, files, policy: deps.onOverlap };
  if (deps.onOverlap === "warn") {
    deps.emit({ ...event, decision: "warned", decidedBy: "config" });
    return { note: `Warning: ${where}. Both may edit them: orca serialises their writes, but tell them apart (message_agent) or sequence them (depends_on).` };
  }
  if (deps.onOverlap === "refuse") {
    deps.emit({ ...event, decision: "refused", decidedBy: "config" });
    return { refused: `${where} (agents.on_overlap: refuse). Wait for ${otherOwner.id} to end, narrow the scope, or make ${task.id} depend on ${other.id}.`, note: "" };
  }
  const decidedBy = deps.approver.decidedBy === "headless" ? "headless" : "user";
  const answer = await deps.approver.request(
    { callId, agentId: parent.id, agentName: parent.definition.name, tool: "delegate", args, rule: "agents.on_overlap: ask", preview: `${where}.` },
    signal,
  );
  if (answer.decision === "deny" || signal.aborted) {
    deps.emit({ ...event, decision: "denied", decidedBy });
    const reason = "reason" in answer && answer.reason ? `: ${answer.reason}` : "";
    return { refused: `not delegated: ${where}, and the person declined it (agents.on_overlap: ask)${reason}.`, note: "" };
  }
  deps.emit({ ...event, decision: "approved", decidedBy });
  return { note: `Note: ${where}; the person approved running both.` };
}

/** When a task's owner ends, a task it left in progress follows how it ended. */
export function ownerEnded(board: TaskBoard, agent: AgentState, status: AgentStatus): void {
  const next: TaskStatus = status === "done" ? "done" : status === "cancelled" ? "cancelled" : "failed";
  for (const task of board.ownedBy(agent.id)) {
    if (task.status === "in_progress") board.update(agent.id, task.id, { status: next }, "orca");
  }
}
