import type { TASK_STATUSES } from "../events/schema-team.js";
import type { EmitFn, InputOf, OrcaEvent } from "../events/types.js";
import { patternProblem } from "../tools/builtin/walk.js";

/**
 * The team's task board (issue #31): tasks with a title, an owner (the agent a delegation gave it
 * to), a status, the tasks it depends on and the files it is about (globs). The board is its
 * events: `reduceBoard` is the one place they are applied, so the live board, a resumed session
 * (`boardFromEvents` over the log) and the dashboard can never disagree.
 */

export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Task {
  readonly id: string;
  readonly title: string;
  readonly status: TaskStatus;
  /** The agent id working on it (set by a delegation naming the task, or by task_update). */
  readonly owner?: string;
  readonly dependsOn: readonly string[];
  readonly scope: readonly string[];
  readonly notes?: string;
  /** The agent that created it. */
  readonly createdBy: string;
}

export interface BoardState {
  /** In creation order. */
  readonly tasks: readonly Task[];
}

export const EMPTY_BOARD: BoardState = { tasks: [] };

type BoardEvent = InputOf<"task_created"> | InputOf<"task_updated">;

/** The board after one event; any other event leaves it as it is. Pure. */
export function reduceBoard(state: BoardState, event: BoardEvent | OrcaEvent): BoardState {
  if (event.type === "task_created") {
    if (state.tasks.some((t) => t.id === event.taskId)) return state;
    const task: Task = {
      id: event.taskId,
      title: event.title,
      status: "pending",
      dependsOn: [...event.dependsOn],
      scope: [...event.scope],
      ...(event.notes !== undefined ? { notes: event.notes } : {}),
      createdBy: event.agentId,
    };
    return { tasks: [...state.tasks, task] };
  }
  if (event.type === "task_updated") {
    const { taskId, title, status, owner, dependsOn, scope, notes } = event;
    const changes = { title, status, owner, dependsOn, scope, notes };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<Task>;
    return { tasks: state.tasks.map((t) => (t.id === taskId ? { ...t, ...defined } : t)) };
  }
  return state;
}

/** The board as a log left it: what a resume restores, and what the dashboard replays. */
export function boardFromEvents(events: readonly OrcaEvent[]): BoardState {
  let state = EMPTY_BOARD;
  for (const event of events) state = reduceBoard(state, event);
  return state;
}

/** The tasks `task` waits for: those it depends on that are not done (an unknown id counts as not done). */
export function blockersOf(state: BoardState, task: Task): { id: string; task?: Task }[] {
  return task.dependsOn
    .map((id) => ({ id, task: state.tasks.find((t) => t.id === id) }))
    .filter((d) => d.task?.status !== "done");
}

/** "t2 "fix subtract" (in_progress, editor-1)". */
export function describeTask(task: Task): string {
  return `${task.id} "${task.title}" (${task.status}${task.owner ? `, ${task.owner}` : ""})`;
}

/** The board as the model reads it (task_list), one task a line with what blocks it. */
export function boardText(state: BoardState): string {
  if (!state.tasks.length) return "The board is empty: task_create adds tasks.";
  return state.tasks
    .map((t) => {
      const blocked = blockersOf(state, t).map((b) => b.id);
      const parts = [
        `${t.id} [${t.status}] ${t.title}`,
        t.owner ? `owner ${t.owner}` : "no owner",
        t.dependsOn.length ? `depends on ${t.dependsOn.join(", ")}${blocked.length && t.status === "pending" ? ` (waiting for ${blocked.join(", ")})` : ""}` : "",
        t.scope.length ? `scope ${t.scope.join(" ")}` : "",
        t.notes ? `notes: ${t.notes}` : "",
      ];
      return parts.filter(Boolean).join(" · ");
    })
    .join("\n");
}

export interface TaskInput {
  title?: string;
  status?: TaskStatus;
  owner?: string;
  dependsOn?: string[];
  scope?: string[];
  notes?: string;
}

/**
 * The session's live board: checks a change, emits its event and applies it with `reduceBoard`.
 * `prior` are the events of the log a resumed session continues: its board starts where they left it.
 */
export class TaskBoard {
  private board: BoardState;

  constructor(
    private readonly emit: EmitFn,
    prior: readonly OrcaEvent[] = [],
  ) {
    this.board = boardFromEvents(prior);
  }

  get state(): BoardState {
    return this.board;
  }

  get(id: string): Task | undefined {
    return this.board.tasks.find((t) => t.id === id);
  }

  /** The tasks an agent owns, newest first. */
  ownedBy(agentId: string): Task[] {
    return this.board.tasks.filter((t) => t.owner === agentId).reverse();
  }

  create(by: string, input: TaskInput & { title: string }): Task | { error: string } {
    const problem = this.problem(undefined, input);
    if (problem) return { error: problem };
    const id = `t${this.nextNumber()}`;
    const event: InputOf<"task_created"> = {
      type: "task_created",
      agentId: by,
      taskId: id,
      title: input.title.trim(),
      dependsOn: input.dependsOn ?? [],
      scope: input.scope ?? [],
      ...(input.notes ? { notes: input.notes } : {}),
    };
    this.apply(event);
    return this.get(id)!;
  }

  /** Changes the given fields; `by: orca` for the board's own bookkeeping (delegation, an owner's end). */
  update(agentId: string, id: string, changes: TaskInput, by: "agent" | "orca" = "agent"): Task | { error: string } {
    const task = this.get(id);
    if (!task) return { error: `no task ${id} on the board (task_list shows them)` };
    const problem = this.problem(task, changes);
    if (problem) return { error: problem };
    const fields = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as TaskInput;
    if (!Object.keys(fields).length) return task;
    this.apply({ type: "task_updated", agentId, taskId: id, ...fields, by });
    return this.get(id)!;
  }

  private apply(event: BoardEvent): void {
    this.emit(event);
    this.board = reduceBoard(this.board, event);
  }

  private nextNumber(): number {
    let n = 0;
    for (const t of this.board.tasks) n = Math.max(n, Number(/^t(\d+)$/.exec(t.id)?.[1] ?? 0));
    return n + 1;
  }

  /** Why a change cannot be made: an empty title, an unknown dependency, a cycle, a glob that leaves the workspace. */
  private problem(task: Task | undefined, input: TaskInput): string | null {
    if (input.title !== undefined && !input.title.trim()) return "a task needs a title";
    for (const dep of input.dependsOn ?? []) {
      if (!this.get(dep)) return `depends_on names ${dep}, which is not on the board`;
      if (task && (dep === task.id || this.dependsOnTransitively(dep, task.id))) return `${task.id} cannot depend on ${dep}: that would be a cycle`;
    }
    for (const glob of input.scope ?? []) {
      const bad = patternProblem(glob);
      if (bad) return `scope: ${bad}`;
    }
    return null;
  }

  private dependsOnTransitively(from: string, target: string, seen = new Set<string>()): boolean {
    if (seen.has(from)) return false;
    seen.add(from);
    return (this.get(from)?.dependsOn ?? []).some((d) => d === target || this.dependsOnTransitively(d, target, seen));
  }
}
