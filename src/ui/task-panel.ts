import { blockersOf, type Task } from "../orchestrator/task-board.js";
import { agentTitle } from "./format.js";
import type { DashboardState } from "./state/types.js";
import type { DocLine } from "./state/ui.js";
import { paint, type Role } from "./theme.js";

const STATUS_LOOK: Record<Task["status"], { icon: string; role: Role }> = {
  pending: { icon: "○", role: "muted" },
  in_progress: { icon: "●", role: "running" },
  done: { icon: "✓", role: "ok" },
  failed: { icon: "✗", role: "error" },
  cancelled: { icon: "⊘", role: "warn" },
};

/**
 * The team's board as /tasks shows it, drawn from the dashboard's state each frame (it follows
 * the run): one line per task with its status, owner pane and what it waits for, then its scope.
 */
export function tasksDocument(state: DashboardState): { title: string; lines: DocLine[] } {
  const board = state.tasks;
  if (!board?.tasks.length) return { title: "tasks", lines: [{ text: "No tasks yet: the coordinator adds them with task_create, and delegate {task_id} gives one an owner." }] };
  const done = board.tasks.filter((t) => t.status === "done").length;
  const lines: DocLine[] = [{ text: `${done}/${board.tasks.length} done`, styled: paint("muted", `${done}/${board.tasks.length} done`) }, { text: "" }];
  for (const task of board.tasks) {
    const look = STATUS_LOOK[task.status];
    const owner = task.owner ? state.agents[task.owner] : undefined;
    const who = task.owner ? (owner ? agentTitle(owner) : task.owner) : "no owner";
    const blockers = task.status === "done" ? [] : blockersOf(board, task).map((b) => `${b.id} ${b.task?.status ?? "missing"}`);
    const waits = blockers.length ? ` · blocked by ${blockers.join(", ")}` : "";
    const head = `${look.icon} ${task.id} ${task.status.padEnd(11)} ${task.title} · ${who}${waits}`;
    lines.push({ text: head, styled: paint(look.role, `${look.icon} ${task.id} ${task.status.padEnd(11)}`) + ` ${task.title} · ` + paint("label", who) + paint("warn", waits) });
    const more = [task.dependsOn.length ? `depends on ${task.dependsOn.join(", ")}` : "", task.scope.length ? `scope ${task.scope.join(" ")}` : "", task.notes ? `notes: ${task.notes}` : ""].filter(Boolean);
    if (more.length) lines.push({ text: `    ${more.join(" · ")}`, styled: paint("muted", `    ${more.join(" · ")}`) });
  }
  return { title: "tasks", lines };
}
