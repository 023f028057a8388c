import { STATUS_CODES } from "node:http";
import { ModelError, type ModelErrorKind } from "../util/errors.js";

/** Local servers (Ollama, llama.cpp, vLLM) ignore the key, but the SDKs refuse to start without one. */
export const PLACEHOLDER_KEY = "orca-no-key";

type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/**
 * The error classes a provider SDK throws. The official OpenAI and Anthropic SDKs are generated from
 * the same template, so both name them alike and one classification serves either.
 */
export interface SdkErrors {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass<Error & { readonly status: number | undefined; readonly error: unknown }>;
  AuthenticationError: ErrorClass;
  PermissionDeniedError: ErrorClass;
  NotFoundError: ErrorClass;
  RateLimitError: ErrorClass;
  InternalServerError: ErrorClass;
  /** Anthropic's 529, told apart from other 5xx. */
  OverloadedError?: ErrorClass;
}

export interface FailureContext {
  /** Undefined when the SDK was never loaded: then no failure can be one of its classes. */
  sdk: SdkErrors | undefined;
  model: string;
  baseURL: string;
  attempts: number;
  apiKey: string | undefined;
  timeoutMs: number;
  aborted: boolean;
  idleTimedOut: boolean;
  /** The 401 message: which key to check, where. */
  authFailed: string;
  /** The server's own explanation from an APIError's parsed body, or "". */
  serverDetail: (body: unknown) => string;
}

/** " (after N attempts)" when a request was tried more than once. */
export function triesText(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : "";
}

/** Every failure → a ModelError with one line a user can act on. Order matters: subclasses first. */
export function classifyFailure(error: unknown, ctx: FailureContext): ModelError {
  if (error instanceof ModelError) return redact(error, ctx.apiKey);
  const S = ctx.sdk;
  const at = ctx.baseURL;
  const tries = triesText(ctx.attempts);
  const seconds = `${Math.round(ctx.timeoutMs / 100) / 10}s`;
  const make = (kind: ModelErrorKind, message: string, status?: number) => redact(new ModelError(kind, message, status, { cause: error }), ctx.apiKey);
  // orca's own idle timer aborts the SDK too: that abort is a timeout, not the user's cancel.
  if (ctx.idleTimedOut && !ctx.aborted) return make("timeout", `the model sent nothing for ${seconds} mid-response at ${at}`);
  if (ctx.aborted || (S && error instanceof S.APIUserAbortError)) {
    return new ModelError("aborted", "cancelled", undefined, { cause: error });
  }

  if (S && error instanceof S.APIConnectionTimeoutError) return make("timeout", `model request timed out after ${seconds} at ${at}${tries}`);
  if (S && error instanceof S.APIConnectionError) {
    return make("connection", `cannot reach the model at ${at}: ${causeText(error.cause ?? error)}${tries}`);
  }
  if (S && error instanceof S.APIError) {
    const status = error.status;
    const detail = ctx.serverDetail(error.error);
    const suffix = detail ? `: ${detail}` : "";
    if (is(error, S.AuthenticationError)) return make("auth", ctx.authFailed, 401);
    if (is(error, S.PermissionDeniedError)) return make("auth", `permission denied (403) by ${at}${suffix}`, 403);
    if (is(error, S.NotFoundError)) return make("not_found", `model "${ctx.model}" not found at ${at}${suffix}`, 404);
    if (is(error, S.RateLimitError)) return make("rate_limit", `rate limited (429) by ${at}${tries}${suffix}`, 429);
    if (is(error, S.OverloadedError)) return make("server", `the model is overloaded (529) at ${at}${tries}${suffix}`, status);
    if (is(error, S.InternalServerError)) {
      return make("server", `model request failed: ${status} ${STATUS_CODES[String(status)] ?? "error"} from ${at}${tries}${suffix}`, status);
    }
    if (status === undefined) {
      // An `error` object inside an otherwise fine event stream (OpenRouter, vLLM, Anthropic's overloaded_error).
      return make("server", `the model endpoint reported an error mid-response${suffix || `: ${error.message}`}`);
    }
    if (status === 408) return make("timeout", `model request timed out (408) at ${at}${tries}${suffix}`, status);
    return make("bad_request", `model request rejected (${status}) by ${at}${suffix}`, status);
  }
  if (error instanceof SyntaxError) return make("server", `the model endpoint sent a malformed event: ${error.message}`);
  // undici: a socket cut mid-body is TypeError("terminated"), a refused connection "fetch failed".
  return make("connection", `connection to ${at} lost mid-response: ${causeText(error)}`);
}

/** A plain test, not a type guard: the subclasses narrow nothing the branches read. */
function is(error: unknown, cls: ErrorClass | undefined): boolean {
  return cls !== undefined && error instanceof cls;
}

/** An error's message and those of its causes, each once, with a system error's code. */
export function causeText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    const text = typeof code === "string" && !current.message.includes(code) ? `${current.message} (${code})` : current.message;
    if (text && !parts.includes(text)) parts.push(text);
    current = current.cause;
  }
  if (parts.length === 0) return String(error);
  return parts.join(": ");
}

/** One line, bounded, and never the API key. */
export function redact(error: ModelError, apiKey: string | undefined): ModelError {
  let message = error.message.replace(/\s+/g, " ").trim();
  if (apiKey && apiKey !== PLACEHOLDER_KEY && apiKey.length >= 4) message = message.split(apiKey).join("***");
  if (message.length > 400) message = `${message.slice(0, 399)}…`;
  if (message === error.message) return error;
  return new ModelError(error.kind, message, error.status, { cause: error.cause });
}

/** The endpoint as shown in messages: no credentials, no trailing slash. */
export function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url.replace(/\/$/, "");
  }
}
