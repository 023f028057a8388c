/**
 * orca's failures as types. A failure is classified once, where it happens (the model client, the
 * tool executor, the budget), and every consumer — the agent loop, the dashboard, the headless
 * exit code — reads the class, never the wording of a message.
 *
 * Every message is one line fit for the UI; `exitCode` is the §11 exit code a run that ends on this
 * failure gets.
 */
export abstract class OrcaError extends Error {
  abstract readonly exitCode: number;
}

/** A configuration or usage problem the user can fix: the CLI prints its message and exits 2. */
export class ConfigError extends OrcaError {
  override readonly name: string = "ConfigError";
  readonly exitCode: number = 2;
}

/** The session's log is held by another live orca process (`--resume` of a running session). */
export class SessionInUse extends ConfigError {
  override readonly name: string = "SessionInUse";
  constructor(
    readonly sessionId: string,
    readonly pid: number,
  ) {
    super(`session ${sessionId} is in use by pid ${pid}`);
  }
}

export type ModelErrorKind =
  | "rate_limit"
  | "server"
  | "auth"
  | "bad_request"
  | "not_found"
  | "connection"
  | "timeout"
  | "truncated"
  /** The response reached its output-token limit (or the context window) before it finished. */
  | "max_tokens"
  | "aborted";

/** Kinds a fresh attempt of the same request may cure. */
const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(["rate_limit", "server", "connection", "timeout"]);

/** Every failure of a model request, classified, with a message fit for one line of UI. */
export class ModelError extends OrcaError {
  override readonly name: string = "ModelError";
  readonly exitCode = 1;
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** The HTTP status, when the endpoint answered with one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether sending the same request again may succeed (the clients retry these themselves first). */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** How a tool call ended, as the model's result, the tool_finished event and the dashboard say. */
export type ToolStatus = "ok" | "error" | "denied" | "cancelled" | "timeout";

/** A tool result's or tool_finished event's status; results and logs from before it existed derive it from `ok`. */
export function toolStatusOf(result: { ok: boolean; status?: ToolStatus }): ToolStatus {
  return result.status ?? (result.ok ? "ok" : "error");
}

/** A tool call that ran and failed (`error`) or was stopped at its time limit (`timeout`). */
export class ToolError extends OrcaError {
  override readonly name: string = "ToolError";
  readonly exitCode = 1;
  constructor(
    message: string,
    readonly status: "error" | "timeout" = "error",
  ) {
    super(message);
  }
}

/** A call refused by policy: a deny rule, the user, a hook, the agent's whitelist, the sandbox. */
export class PermissionDenied extends OrcaError {
  override readonly name: string = "PermissionDenied";
  readonly exitCode = 1;
}

/** How a tool call that threw ended: the failure's own class says it. */
export function toolStatusOfError(error: unknown): Exclude<ToolStatus, "ok"> {
  if (error instanceof ToolError) return error.status;
  if (error instanceof PermissionDenied) return "denied";
  if (error instanceof Cancelled) return "cancelled";
  return "error";
}

/** Work stopped on request: the user's Esc or Ctrl+C, a hook's stop, the session closing. */
export class Cancelled extends OrcaError {
  override readonly name: string = "Cancelled";
  readonly exitCode = 130;
  constructor(message = "cancelled by user") {
    super(message);
  }
}

export type BudgetLimit = "tokens" | "tool_calls" | "time" | "steps" | "cost";

/** A run or an agent reached one of its limits (budget.max_tokens, max_cost_usd, max_tool_calls, max_duration, max_steps). */
export class BudgetExceeded extends OrcaError {
  override readonly name: string = "BudgetExceeded";
  readonly exitCode = 3;
  /** Said once: every agent it stops ends with status budget, but the line is not repeated for each. */
  announced = false;
  constructor(
    readonly limit: BudgetLimit,
    message: string,
  ) {
    super(message);
  }
}

/** The session log could not be written: the run stops rather than go on unrecorded. */
export class LogWriteError extends OrcaError {
  override readonly name: string = "LogWriteError";
  readonly exitCode = 1;
}

/** A run that can make no progress (its agents all wait, and nothing can wake one): it fails. */
export class RunStuck extends OrcaError {
  override readonly name: string = "RunStuck";
  readonly exitCode = 1;
}

/**
 * Why a signal was aborted, as an OrcaError: the scope's own reason when it gave one (a budget, a
 * hook's stop), else a user's cancel.
 */
export function abortReason(signal: AbortSignal): OrcaError {
  const reason: unknown = signal.reason;
  if (reason instanceof OrcaError) return reason;
  return new Cancelled(typeof reason === "string" ? reason : undefined);
}

/** The exit code of §11 for a failure: its own for an OrcaError, 1 for anything else. */
export function exitCodeOfError(error: unknown): number {
  return error instanceof OrcaError ? error.exitCode : 1;
}
