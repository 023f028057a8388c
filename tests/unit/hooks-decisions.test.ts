/**
 * How one hook's exit code and output are read, and what several hooks decide together — the
 * pure layer, against Claude Code's documented contract.
 */
import { describe, expect, it } from "vitest";
import type { HookEventName } from "../../src/config/hooks.js";
import { aggregateBlocking, aggregateContext, aggregatePermissionRequest, aggregatePreToolUse, CONTEXT_LIMIT, decisionOf } from "../../src/hooks/aggregate.js";
import { interpretHookResult, type HookProcessResult, type HookVerdict } from "../../src/hooks/output.js";

function run(partial: Omit<Partial<HookProcessResult>, "stdout"> & { stdout?: unknown }): HookProcessResult {
  const stdout = typeof partial.stdout === "string" || partial.stdout === undefined ? (partial.stdout ?? "") : JSON.stringify(partial.stdout);
  return { exitCode: 0, stderr: "", timedOut: false, cancelled: false, ...partial, stdout };
}

function verdict(event: HookEventName, partial: Omit<Partial<HookProcessResult>, "stdout"> & { stdout?: unknown }): HookVerdict {
  return interpretHookResult(event, run(partial));
}

const pre = (p: Omit<Partial<HookProcessResult>, "stdout"> & { stdout?: unknown }) => verdict("PreToolUse", p);
const decide = (decision: string, extra: Record<string, unknown> = {}) => pre({ stdout: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, ...extra } } });

describe("reading one hook", () => {
  it("exit 0 with JSON: the output is read", () => {
    const v = pre({ stdout: '  {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}\n' });
    expect(v).toMatchObject({ outcome: "ok", exit2: false });
    expect(v.output?.hookSpecificOutput?.permissionDecision).toBe("allow");
  });

  it("exit 0 with plain text: kept as text; a JSON array or string is plain text too", () => {
    expect(verdict("UserPromptSubmit", { stdout: "branch: main\n" })).toMatchObject({ outcome: "ok", text: "branch: main" });
    expect(verdict("UserPromptSubmit", { stdout: '["a"]' })).toMatchObject({ outcome: "ok", text: '["a"]' });
    expect(verdict("UserPromptSubmit", { stdout: "{not json" })).toMatchObject({ outcome: "ok", text: "{not json" });
    expect(verdict("Stop", { stdout: "" }).text).toBeUndefined();
  });

  it("exit 0 with JSON that breaks the schema: a non-blocking error naming the field", () => {
    const v = pre({ stdout: { hookSpecificOutput: { permissionDecision: "maybe" } } });
    expect(v.outcome).toBe("error");
    expect(v.warning).toMatch(/^invalid JSON output: hookSpecificOutput\.permissionDecision: /);
    expect(pre({ stdout: { hookSpecificOutput: { hookEventName: "PostToolUse" } } }).warning).toBe(
      'invalid JSON output: hookSpecificOutput.hookEventName is "PostToolUse" in a PreToolUse hook',
    );
  });

  it("exit 2 blocks whatever stdout says; other codes warn, unless their JSON is valid", () => {
    expect(pre({ exitCode: 2, stderr: "no rm\n" })).toMatchObject({ outcome: "ok", exit2: true, stderr: "no rm\n" });
    expect(pre({ exitCode: 1, stderr: "boom\nmore" })).toMatchObject({ outcome: "error", warning: "Failed with non-blocking status code 1: boom" });
    expect(pre({ exitCode: 127, stderr: "bash: ./x.sh: No such file or directory" }).warning).toBe(
      "Failed with non-blocking status code 127: bash: ./x.sh: No such file or directory",
    );
    const decided = pre({ exitCode: 1, stdout: { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "json says no" } } });
    expect(decided.outcome).toBe("ok");
    expect(decisionOf("PreToolUse", decided)).toEqual({ decision: "deny", message: "json says no" });
  });

  it("a killed hook decides nothing", () => {
    expect(pre({ exitCode: null, timedOut: true })).toMatchObject({ outcome: "timeout", exit2: false });
    expect(pre({ exitCode: null, cancelled: true })).toMatchObject({ outcome: "cancelled" });
    expect(pre({ exitCode: null, spawnError: "ENOENT" })).toMatchObject({ outcome: "error", warning: "could not start: ENOENT" });
    expect(decisionOf("PreToolUse", pre({ exitCode: null, timedOut: true })).decision).toBe("none");
  });
});

describe("PreToolUse", () => {
  it("exit 2: deny with stderr as the reason; even a JSON allow cannot override it", () => {
    const r = aggregatePreToolUse([pre({ exitCode: 2, stderr: "Blocked: rm is not allowed\n", stdout: { hookSpecificOutput: { permissionDecision: "allow" } } })]);
    expect(r).toMatchObject({ decision: "deny", reason: "Blocked: rm is not allowed", decidedBy: 0 });
  });

  it("exit 2 with a JSON deny reason: the JSON's reason wins over stderr", () => {
    const v = pre({ exitCode: 2, stderr: "stderr text", stdout: { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "json reason" } } });
    expect(aggregatePreToolUse([v]).reason).toBe("json reason");
  });

  it("precedence is deny > defer > ask > allow, whatever the order", () => {
    expect(aggregatePreToolUse([decide("allow"), decide("ask", { permissionDecisionReason: "check" })])).toMatchObject({ decision: "ask", reason: "check", decidedBy: 1 });
    expect(aggregatePreToolUse([decide("ask"), decide("deny", { permissionDecisionReason: "no" }), decide("allow")])).toMatchObject({ decision: "deny", reason: "no" });
    expect(aggregatePreToolUse([decide("allow"), pre({ exitCode: 2, stderr: "blocked" })])).toMatchObject({ decision: "deny", reason: "blocked", decidedBy: 1 });
    // defer beats ask and allow, and orca (which has no deferring caller) then takes no decision.
    const deferred = aggregatePreToolUse([decide("ask"), decide("defer", { updatedInput: { command: "x" }, additionalContext: "ctx" })]);
    expect(deferred).toEqual({ additionalContext: [], stop: undefined });
  });

  it("every deny reason reaches the model", () => {
    const r = aggregatePreToolUse([decide("deny", { permissionDecisionReason: "first" }), pre({ exitCode: 2, stderr: "second" })]);
    expect(r.reason).toBe("first\nsecond");
  });

  it("the deprecated top-level decision: approve is allow, block is deny", () => {
    expect(aggregatePreToolUse([pre({ stdout: { decision: "approve", reason: "ok" } })])).toMatchObject({ decision: "allow", reason: "ok" });
    expect(aggregatePreToolUse([pre({ stdout: { decision: "block", reason: "old style" } })])).toMatchObject({ decision: "deny", reason: "old style" });
  });

  it("updatedInput: the first rewrite the winner did not overrule; none under a deny", () => {
    const a = decide("allow", { updatedInput: { command: "from allow" } });
    const b = pre({ stdout: { hookSpecificOutput: { updatedInput: { command: "no decision" } } } });
    const c = decide("ask", { updatedInput: { command: "from ask" } });
    expect(aggregatePreToolUse([a, b]).updatedInput).toEqual({ command: "from allow" });
    expect(aggregatePreToolUse([a, c]).updatedInput).toEqual({ command: "from ask" });
    expect(aggregatePreToolUse([b]).updatedInput).toEqual({ command: "no decision" });
    expect(aggregatePreToolUse([a, decide("deny")]).updatedInput).toBeUndefined();
  });

  it("no decision: the normal flow, with every additionalContext kept", () => {
    const r = aggregatePreToolUse([pre({ stdout: { hookSpecificOutput: { additionalContext: "one" } } }), pre({}), pre({ stdout: { hookSpecificOutput: { additionalContext: "two" } } })]);
    expect(r).toEqual({ additionalContext: ["one", "two"], stop: undefined });
  });

  it("continue: false from any hook stops, with its stopReason", () => {
    const r = aggregatePreToolUse([decide("allow"), pre({ stdout: { continue: false, stopReason: "build is red" } })]);
    expect(r.stop).toEqual({ reason: "build is red" });
    expect(decisionOf("PreToolUse", pre({ stdout: { continue: false, stopReason: "x" } }))).toEqual({ decision: "stop", message: "x" });
  });
});

describe("PermissionRequest", () => {
  const answer = (decision: Record<string, unknown>) => verdict("PermissionRequest", { stdout: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision } } });

  it("deny beats allow; allow may rewrite the input; exit 2 is not honoured", () => {
    expect(aggregatePermissionRequest([answer({ behavior: "allow" }), answer({ behavior: "deny", message: "not today", interrupt: true })])).toEqual({
      behavior: "deny",
      decidedBy: 1,
      message: "not today",
      interrupt: true,
    });
    expect(aggregatePermissionRequest([answer({ behavior: "allow", updatedInput: { command: "npm run lint" } })])).toEqual({
      behavior: "allow",
      decidedBy: 0,
      updatedInput: { command: "npm run lint" },
      interrupt: false,
    });
    expect(aggregatePermissionRequest([verdict("PermissionRequest", { exitCode: 2, stderr: "no" })])).toEqual({ interrupt: false });
  });
});

describe("blocking events", () => {
  it("Stop: a block (exit 2 or decision block) keeps the agent going with the reasons", () => {
    const r = aggregateBlocking("Stop", [verdict("Stop", { stdout: { decision: "block", reason: "run the tests first" } }), verdict("Stop", { exitCode: 2, stderr: "lint failed\n" })]);
    expect(r).toMatchObject({ block: true, reasons: ["run the tests first", "lint failed"] });
    expect(aggregateBlocking("Stop", [verdict("Stop", {})]).block).toBe(false);
  });

  it("UserPromptSubmit: plain stdout and additionalContext are both context", () => {
    const r = aggregateBlocking("UserPromptSubmit", [
      verdict("UserPromptSubmit", { stdout: "today is Monday" }),
      verdict("UserPromptSubmit", { stdout: { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ticket #12" } } }),
    ]);
    expect(r).toMatchObject({ block: false, additionalContext: ["today is Monday", "ticket #12"] });
  });

  it("PostToolUse: plain stdout is not context there; exit 2's stderr is feedback for the model", () => {
    const r = aggregateBlocking("PostToolUse", [verdict("PostToolUse", { stdout: "formatted" }), verdict("PostToolUse", { exitCode: 2, stderr: "lint: 3 errors" })]);
    expect(r).toMatchObject({ block: true, reasons: ["lint: 3 errors"], additionalContext: [] });
  });

  it("SessionStart: plain stdout is context; SubagentStart: only additionalContext", () => {
    expect(aggregateContext("SessionStart", [verdict("SessionStart", { stdout: "on branch main" })]).additionalContext).toEqual(["on branch main"]);
    expect(aggregateContext("SubagentStart", [verdict("SubagentStart", { stdout: "ignored" })]).additionalContext).toEqual([]);
  });

  it("events that cannot block report exit 2's stderr to the user and decide nothing", () => {
    expect(decisionOf("SessionStart", verdict("SessionStart", { exitCode: 2, stderr: "setup failed\n" }))).toEqual({ decision: "none", message: "setup failed" });
  });

  it("context longer than Claude Code's 10,000 characters is cut, saying so", () => {
    const long = "x".repeat(CONTEXT_LIMIT + 5);
    const [context] = aggregateBlocking("UserPromptSubmit", [verdict("UserPromptSubmit", { stdout: long })]).additionalContext;
    expect(context!.startsWith("x".repeat(CONTEXT_LIMIT))).toBe(true);
    expect(context).toMatch(/… \(5 more characters cut\)$/);
  });
});
