import type { RecordedRequest } from "./scripted.js";

/**
 * How the demo's scripted agents read their own conversation: the calls they made and what came
 * back, so what they say follows what really happened (a denied write, a cancelled editor, a red
 * test run) instead of a script written for the happy path.
 */

export interface SeenCall {
  name: string;
  args: Record<string, unknown>;
  /** The tool message's text; undefined while it has none (never, in a valid history). */
  result?: string;
}

/** Every tool call of the conversation in order, each with its result. */
export function seenCalls(request: RecordedRequest): SeenCall[] {
  const byId = new Map<string, SeenCall>();
  const calls: SeenCall[] = [];
  for (const message of request.body.messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        let args: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(call.function.arguments || "{}");
          if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
        } catch {
          // The demo sends its own arguments; a damaged one reads as no arguments.
        }
        const seen: SeenCall = { name: call.function.name, args };
        byId.set(call.id, seen);
        calls.push(seen);
      }
    } else if (message.role === "tool" && message.tool_call_id) {
      const seen = byId.get(message.tool_call_id);
      if (seen) seen.result = message.content ?? "";
    }
  }
  return calls;
}

/** The latest call of `name` (optionally matching `where`), with its result. */
export function lastCall(request: RecordedRequest, name: string, where: (call: SeenCall) => boolean = () => true): SeenCall | undefined {
  return seenCalls(request)
    .filter((c) => c.name === name && where(c))
    .at(-1);
}

export type Outcome =
  | { ok: true; text: string }
  | { ok: false; denied: boolean; cancelled: boolean; reason?: string; error: string };

/** What a write or a command came to, read from its result text. */
export function outcomeOf(call: SeenCall | undefined): Outcome {
  const text = call?.result;
  if (text === undefined) return { ok: false, denied: false, cancelled: true, error: "it never ran" };
  const denied = /^Error: denied by user(?:: ([\s\S]*))?$/.exec(text);
  if (denied) return { ok: false, denied: true, cancelled: false, reason: denied[1]?.trim() || undefined, error: "the user denied it" };
  // The error up to its advice for the model ("; read the file again…"), which is not for the user.
  if (/^Error: /.test(text)) return { ok: false, denied: false, cancelled: false, error: text.slice(7).split("\n")[0]!.split("; ")[0]! };
  if (/^cancelled\b|\[cancelled\]$/.test(text)) return { ok: false, denied: false, cancelled: true, error: "it was cancelled" };
  return { ok: true, text };
}

export interface DelegateReport {
  label: string;
  status: string;
  files: string[];
  answer: string;
}

/** The sub-agents' reports the delegate tool returned, by label. */
export function delegateReports(request: RecordedRequest): Map<string, DelegateReport> {
  const reports = new Map<string, DelegateReport>();
  for (const call of seenCalls(request)) {
    if (call.name !== "delegate" || typeof call.args.label !== "string") continue;
    const text = call.result ?? "";
    const status = /^status: (\S+)/m.exec(text)?.[1] ?? (text.startsWith("Error:") ? "failed" : "unknown");
    const files = /^files changed: (.*)$/m.exec(text)?.[1];
    const answer = text.split(/^--- answer ---$/m)[1]?.trim() ?? "";
    reports.set(call.args.label, { label: call.args.label, status, files: !files || files === "none" ? [] : files.split(", "), answer });
  }
  return reports;
}

/** `export function name(` lines of a read_file result, with their line numbers. */
export function functionsIn(readResult: string | undefined): { line: number; name: string; params: string }[] {
  const out: { line: number; name: string; params: string }[] = [];
  for (const m of (readResult ?? "").matchAll(/^\s*(\d+)\texport function (\w+)\(([^)]*)\)/gm)) {
    out.push({ line: Number(m[1]), name: m[2]!, params: m[3]! });
  }
  return out;
}
