/**
 * Attacks on `verify:` commands: orca runs them itself when an agent ends, without a dialog, so the
 * rules that hold for every other command must hold for them: a deny rule refuses one, and plan
 * mode (nothing writes) runs it in the read-only sandbox. The agent definition is a project's
 * (`.orca/agents/`); a scripted coordinator delegates to it and the sub-agent ends at once.
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { perAgent, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
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

const CHECKER = `---
name: checker
description: Looks at things; orca verifies after it.
tools: [read_file, list_dir]
verify: touch verified.txt
---
You look.
`;

async function runChecker(config: string): Promise<EventOf<"verify_finished">[]> {
  server = await startScriptedServer(
    perAgent({
      coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "checker", task: "look" } }] }, { text: "done" }],
      "checker-1": [{ text: "looked" }],
    }),
  );
  ws = tempWorkspace({ ".orca/agents/checker.md": CHECKER });
  orchestra = await testOrchestra(ws, server.url, { config });
  const events: OrcaEvent[] = [];
  orchestra.session.bus.subscribe((e) => events.push(e));
  const result = await orchestra.session.run("go");
  expect(result.status).toBe("done");
  return events.filter((e): e is EventOf<"verify_finished"> => e.type === "verify_finished");
}

describe("verify commands obey the permission rules", () => {
  it("a deny rule that matches a verify command refuses it", async () => {
    const verified = await runChecker('permissions:\n  deny: ["bash(touch *)"]\n');
    expect(verified).toHaveLength(1);
    expect(verified[0]).toMatchObject({ command: "touch verified.txt", status: "denied" });
    expect(fs.existsSync(ws!.file("verified.txt"))).toBe(false);
  });

  it("in plan mode a verify command runs in the read-only sandbox: it writes nothing", async () => {
    const verified = await runChecker("permissions:\n  mode: plan\nsandbox:\n  enabled: true\n");
    expect(verified).toHaveLength(1);
    expect(verified[0]!.exitCode).not.toBe(0);
    expect(fs.existsSync(ws!.file("verified.txt"))).toBe(false);
  });
});
