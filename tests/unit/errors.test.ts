import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/usage.js";
import { SandboxError } from "../../src/tools/sandbox/index.js";
import {
  abortReason,
  BudgetExceeded,
  Cancelled,
  ConfigError,
  exitCodeOfError,
  LogWriteError,
  ModelError,
  OrcaError,
  PermissionDenied,
  SessionInUse,
  ToolError,
  toolStatusOf,
  toolStatusOfError,
} from "../../src/util/errors.js";
import { CancelScope } from "../../src/util/cancel-scope.js";

describe("the OrcaError hierarchy", () => {
  it("each failure carries its §11 exit code", () => {
    expect(exitCodeOfError(new ConfigError("bad key"))).toBe(2);
    expect(exitCodeOfError(new UsageError("bad option", []))).toBe(2);
    expect(exitCodeOfError(new SessionInUse("s1", 42))).toBe(2);
    expect(exitCodeOfError(new ModelError("server", "500"))).toBe(1);
    expect(exitCodeOfError(new LogWriteError("disk full"))).toBe(1);
    expect(exitCodeOfError(new BudgetExceeded("tokens", "spent"))).toBe(3);
    expect(exitCodeOfError(new Cancelled())).toBe(130);
    expect(exitCodeOfError(new Error("anything else"))).toBe(1);
    expect(new SessionInUse("s1", 42).message).toBe("session s1 is in use by pid 42");
  });

  it("a run's status maps to the same codes", () => {
    expect([exitCodeFor("done"), exitCodeFor("idle"), exitCodeFor("failed"), exitCodeFor("loop"), exitCodeFor("budget"), exitCodeFor("max_steps"), exitCodeFor("cancelled")]).toEqual([0, 0, 1, 1, 3, 3, 130]);
  });

  it("ModelError says whether a retry may help, by kind, not by message", () => {
    expect(new ModelError("rate_limit", "slow down", 429).retryable).toBe(true);
    expect(new ModelError("server", "oops", 503).retryable).toBe(true);
    expect(new ModelError("auth", "bad key", 401).retryable).toBe(false);
    expect(new ModelError("bad_request", "server error in the text", 400).retryable).toBe(false);
    expect(new ModelError("server", "x", 500)).toBeInstanceOf(OrcaError);
  });

  it("a thrown failure's class gives the tool status; the sandbox's refusal is a denial", () => {
    expect(toolStatusOfError(new ToolError("took too long", "timeout"))).toBe("timeout");
    expect(toolStatusOfError(new ToolError("broke"))).toBe("error");
    expect(toolStatusOfError(new SandboxError("no sandbox here"))).toBe("denied");
    expect(toolStatusOfError(new PermissionDenied("no"))).toBe("denied");
    expect(toolStatusOfError(new Cancelled())).toBe("cancelled");
    expect(toolStatusOfError(new Error("cancelled by user"))).toBe("error");
    expect(toolStatusOf({ ok: true })).toBe("ok");
    expect(toolStatusOf({ ok: false })).toBe("error");
    expect(toolStatusOf({ ok: false, status: "timeout" })).toBe("timeout");
  });

  it("a scope's abort reason is typed, and crosses the cancel tree", () => {
    const run = new CancelScope();
    const agent = new CancelScope(run.signal);
    run.cancel(new BudgetExceeded("time", "time budget reached (5s)"));
    expect(abortReason(agent.signal)).toBeInstanceOf(BudgetExceeded);
    expect(abortReason(agent.signal).message).toBe("time budget reached (5s)");
    const plain = new AbortController();
    plain.abort();
    expect(abortReason(plain.signal)).toBeInstanceOf(Cancelled);
    expect(abortReason(plain.signal).message).toBe("cancelled by user");
  });
});
