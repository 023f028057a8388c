import type { z } from "zod";
import type { Access, EmitFn } from "../events/types.js";
import type { SandboxRequest } from "./sandbox/types.js";
import type { CallVersions } from "./versions.js";
import type { Workspace } from "./workspace.js";
import type { ToolStatus } from "../util/errors.js";

export type { Access };

export type { ToolStatus };

export interface ToolResult {
  /** Kept for consumers of the event stream: true exactly when `status` is ok. */
  ok: boolean;
  /**
   * How the call ended. A tool sets it when it knows more than `ok` says (a timeout, a cancel, a
   * refusal); unset, it is derived from `ok`. Every result the executor hands on carries it.
   */
  status?: ToolStatus;
  /** What the model receives. For a failure, the error text the model should read. */
  content: string;
  /** A one-line error for the UI and log when ok is false. */
  error?: string;
  meta?: Record<string, unknown>;
}

export interface ToolContext {
  signal: AbortSignal;
  workspace: Workspace;
  agentId: string;
  callId: string;
  emit: EmitFn;
  /**
   * How a command of this call must run, as the permission engine decided: `read-only` (plan
   * mode), `workspace-write`, or `none` (the user approved running it outside the sandbox). Unset:
   * sandboxed when a sandbox is available. Only bash and background shells read it.
   */
  sandbox?: SandboxRequest;
  /**
   * The `read_file(PATTERN)` deny rule hiding a workspace-relative path's content, if any: tools
   * that read content (grep, get_skill) skip such files. Unset outside a session.
   */
  readDenied?: (relative: string) => string | undefined;
  /**
   * The calling agent's read versions (see versions.ts). The executor sets it for every
   * scheduled call; it is absent only when a tool runs outside a session (unit tests).
   */
  versions?: CallVersions;
}

/** What a permission rule pattern is matched against, per tool kind. */
export type PermissionSubject =
  | { kind: "path"; value: string } // workspace-relative path (file tools)
  /** bash; `unsandboxed`: the call asks to run outside the sandbox (only a person can allow that). */
  | { kind: "command"; value: string; unsandboxed?: boolean }
  | { kind: "none" };

export interface Tool<A = unknown> {
  readonly name: string;
  readonly description: string;
  /**
   * Validates and types the arguments. Built-ins use a zod object schema, made on first read (a
   * getter over util/built-on-use.ts's madeOnFirstCall): the first request offers the schema made
   * at build time, so a start need not build one (~5–10 ms of zod before the first request).
   */
  readonly params: z.ZodType<A>;
  /**
   * Set on a tool whose parameter schema the build makes ahead (tools/prebuilt-schemas.ts): what,
   * beyond its code, the schema depends on — the settings it was made with, "" when none. The kept
   * schema is found by the tool's name and this, without building `params`. Unset (MCP tools, tests'
   * own): the schema is converted from `params`.
   */
  readonly schemaVariant?: string;
  /** When set (MCP tools), the JSON Schema offered to the model instead of one derived from params. */
  readonly jsonSchema?: Record<string, unknown>;
  /** True when this call never changes anything (plan mode allows only these). */
  readOnly(args: A): boolean;
  /**
   * True when readOnly() is someone else's claim orca cannot check (an MCP server's
   * `readOnlyHint`): it schedules the call as a read, and never skips a permission question.
   */
  readonly readOnlyClaimed?: boolean;
  /** What the call touches, as absolute normalised paths or pseudo-paths like `mcp:<server>`. */
  access(args: A, workspace: Workspace): Access;
  permissionSubject(args: A, workspace: Workspace): PermissionSubject;
  /**
   * The files (or folders) whose content this call's result may hold, as the model named them. The
   * executor refuses the call when a `read_file(PATTERN)` deny rule hides one (read-gate.ts); a tool
   * that returns file content declares it. Unset on a built-in: it reads no content; on an MCP
   * tool, every path its arguments name counts.
   */
  reads?(args: A, workspace: Workspace): string[];
  /** What the call would change, shown when a human is asked (a unified diff for file edits). */
  preview?(args: A, workspace: Workspace): Promise<string | undefined>;
  /**
   * True for tools that only orchestrate (delegate): they are not scheduled themselves, because
   * the calls they cause are, and holding a scheduler slot for a whole sub-agent run would block.
   */
  readonly unscheduled?: boolean;
  execute(args: A, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A tool whose argument type has been erased, as the registry stores it. Method syntax above
 * keeps parameters bivariant, so any Tool<A> is assignable to this.
 */
export type AnyTool = Tool<unknown>;

export function ok(content: string, meta?: Record<string, unknown>): ToolResult {
  return { ok: true, content, meta };
}

export function fail(error: string, content?: string, status: Exclude<ToolStatus, "ok"> = "error"): ToolResult {
  return { ok: false, status, error, content: content ?? `Error: ${error}` };
}

/** A call stopped by a cancel before or while it ran. */
export function cancelledResult(error = "cancelled by user", content?: string): ToolResult {
  return fail(error, content ?? error, "cancelled");
}
