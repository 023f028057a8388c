/**
 * Attack: where there is no sandbox (off, or a platform without one) a command an allow rule covers
 * runs as the user, and the sandbox's read-only protected paths are not there to stop it. An
 * "always" now saves a prefix rule (`bash(cp *)`) rather than the exact command, so the next `cp`
 * the model makes — into `.git/hooks/` — must still ask, as a write_file there would.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../../src/tools/approver.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;

afterEach(async () => {
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  server = orchestra = ws = undefined;
});

/** A person who answers "always" (the suggested rule) to the first question and "no" to the rest. */
class FirstAlways implements Approver {
  readonly decidedBy = "user" as const;
  readonly asked: PermissionRequest[] = [];
  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    this.asked.push(request);
    return this.asked.length === 1 ? { decision: "always" } : { decision: "deny" };
  }
}

describe("a prefix rule with no sandbox", () => {
  it("does not cover a command that writes a protected path", async () => {
    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: "cp a.txt b.txt" } }] },
      { toolCalls: [{ name: "bash", args: { command: "cp hook.sh .git/hooks/pre-commit" } }] },
      { text: "done" },
    ]);
    ws = tempWorkspace({ "a.txt": "a\n", "hook.sh": "#!/bin/sh\ntouch pwned\n" });
    execFileSync("git", ["init", "-q"], { cwd: ws.dir });
    const person = new FirstAlways();
    orchestra = await testOrchestra(ws, server.url, { approver: person, config: "sandbox:\n  enabled: false\n" });
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    expect(person.asked[0]!.always?.rule).toBe("bash(cp *)");
    expect(fs.existsSync(ws.file("b.txt"))).toBe(true);
    await vi.waitFor(() => expect(person.asked).toHaveLength(2));
    expect(fs.existsSync(ws.file(".git/hooks/pre-commit"))).toBe(false);
  });
});
