import { z } from "zod";
import { madeOnFirstCall } from "../util/built-on-use.js";
import { TASK_STATUSES } from "../events/schema-team.js";
import type { AnyTool, Tool, ToolResult } from "../tools/tool.js";
import { boardText, describeTask, type Task, type TaskBoard, type TaskInput } from "./task-board.js";

/**
 * The board's tools. The lead's (task_create, task_update, task_list) come with delegate, as
 * message_agent does; an owner's (my_task, my_task_update) come with owning a task. Like delegate
 * they are not scheduled: they touch no file.
 */
export const LEAD_TASK_TOOLS = ["task_create", "task_update", "task_list"] as const;
export const OWNER_TASK_TOOLS = ["my_task", "my_task_update"] as const;

const unscheduled = {
  unscheduled: true,
  readOnly: () => true,
  access: () => ({ reads: [], writes: [] }),
  permissionSubject: () => ({ kind: "none" as const }),
};

/** The board tools' parameters, made on first use (tools/tool.ts, `params`). */
const schemas = madeOnFirstCall(() => {
  const title = z.string().min(1).max(120).describe("A few words, e.g. 'fix subtract'.");
  const dependsOn = z.array(z.string().min(1)).describe("Ids of tasks that must be done before this one can be delegated, e.g. [\"t1\"].");
  const scope = z
    .array(z.string().min(1))
    .describe("Workspace-relative globs of the files it will touch, e.g. [\"src/math.js\", \"test/**\"]; a delegation whose scope meets a running task's is flagged.");
  const notes = z.string().max(2000).describe("Free text: decisions, what is left, why it failed.");
  return {
    create: z.object({ title, depends_on: dependsOn.optional(), scope: scope.optional(), notes: notes.optional() }),
    update: z.object({
      id: z.string().min(1).describe("The task's id, e.g. t2."),
      title: title.optional(),
      status: z.enum(TASK_STATUSES).optional(),
      owner: z.string().min(1).optional().describe("The agent id working on it."),
      depends_on: dependsOn.optional(),
      scope: scope.optional(),
      notes: notes.optional(),
    }),
    list: z.object({}),
    mine: z.object({}),
    ownUpdate: z.object({
      id: z.string().min(1).optional().describe("Which of your tasks, when you own more than one; default: the latest."),
      status: z.enum(["in_progress", "done", "failed"]).optional(),
      notes: notes.optional(),
    }),
  };
});

interface CreateArgs {
  title: string;
  depends_on?: string[];
  scope?: string[];
  notes?: string;
}
interface UpdateArgs {
  id: string;
  title?: string;
  status?: Task["status"];
  owner?: string;
  depends_on?: string[];
  scope?: string[];
  notes?: string;
}
interface OwnUpdateArgs {
  id?: string;
  status?: "in_progress" | "done" | "failed";
  notes?: string;
}

export interface TaskToolsHost {
  board: TaskBoard;
  /** Whether `id` is an agent of this session (an owner must be one). */
  isAgent(id: string): boolean;
}

export function createTaskTools(host: TaskToolsHost): AnyTool[] {
  const { board } = host;
  const create: Tool<CreateArgs> = {
    name: "task_create",
    description:
      "Add a task to the team's board, which the person watches: a title, the tasks it depends on and its file scope. It starts " +
      "pending; delegate {task_id} hands it to a sub-agent (who becomes its owner). A task whose dependencies are not done cannot be delegated.",
    get params() {
      return schemas().create;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (args, ctx) => done(board.create(ctx.agentId, { title: args.title, dependsOn: args.depends_on, scope: args.scope, notes: args.notes }), "created"),
  };
  const update: Tool<UpdateArgs> = {
    name: "task_update",
    description: "Change a task on the board: its title, status, owner (an agent id), dependencies, scope or notes. Only the fields given change.",
    get params() {
      return schemas().update;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (args, ctx) => {
      if (args.owner !== undefined && !host.isAgent(args.owner)) return failed(`no agent ${args.owner} in this session`);
      const changes: TaskInput = { title: args.title, status: args.status, owner: args.owner, dependsOn: args.depends_on, scope: args.scope, notes: args.notes };
      return done(board.update(ctx.agentId, args.id, changes), "updated");
    },
  };
  const list: Tool<Record<string, never>> = {
    name: "task_list",
    description: "The team's board: every task with its status, owner, dependencies (and what it still waits for), scope and notes.",
    get params() {
      return schemas().list;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async () => ({ ok: true, content: boardText(board.state) }),
  };
  const mine: Tool<Record<string, never>> = {
    name: "my_task",
    description: "The board task you were given (its title, status, dependencies, scope and notes).",
    get params() {
      return schemas().mine;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (_args, ctx) => {
      const own = board.ownedBy(ctx.agentId);
      if (!own.length) return failed("you own no task on the board");
      return { ok: true, content: boardText({ tasks: own }) };
    },
  };
  const ownUpdate: Tool<OwnUpdateArgs> = {
    name: "my_task_update",
    description: "Set your board task's status (in_progress, done, failed) and notes, so your lead and the person see where it stands.",
    get params() {
      return schemas().ownUpdate;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (args, ctx) => {
      const own = board.ownedBy(ctx.agentId);
      const task = args.id ? own.find((t) => t.id === args.id) : own[0];
      // Another agent's task is refused whether it exists or not: an owner edits only its own.
      if (!task) return failed(args.id ? `${args.id} is not a task of yours` : "you own no task on the board");
      return done(board.update(ctx.agentId, task.id, { status: args.status, notes: args.notes }), "updated");
    },
  };
  return [create, update, list, mine, ownUpdate] as AnyTool[];
}

function done(result: Task | { error: string }, what: string): ToolResult {
  if ("error" in result) return failed(result.error);
  return { ok: true, content: `${what} ${describeTask(result)}` };
}

function failed(message: string): ToolResult {
  return { ok: false, error: message, content: `Error: ${message}` };
}
