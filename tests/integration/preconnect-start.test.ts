import { describe, expect, it } from "vitest";
import { createSession, type SessionSetup } from "../../src/orchestrator/create.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { ROOT, TEST_KEY, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Preconnect's socket must make progress while the rest of the start runs, not after it. The start
 * is a chain of promise continuations; without a turn of the event loop the dialled socket's
 * `connect` is not even issued until the first request waits (src/model/preconnect.ts,
 * letConnectionsOpen). The server runs in this process, so it accepts only when the loop polls:
 * once createSession has returned, a start that let the connection open has been accepted.
 */
async function started(ws: TempWorkspace, url: string): Promise<SessionSetup> {
  return createSession({
    workspace: ws.dir,
    overrides: { baseUrl: url },
    env: { OPENAI_API_KEY: TEST_KEY, ORCA_DATA_DIR: ws.dataDir },
    home: ws.home,
    packageDir: ROOT,
    approver: new HeadlessApprover(true),
    version: "0.0.0-test",
  });
}

describe("preconnect during start-up", () => {
  it("the provider has accepted the connection by the time the session is made (a kept sandbox probe: nothing else waits on I/O)", async () => {
    const ws = workspace();
    // The first start runs the sandbox probe (child processes: the loop turns) and keeps its answer.
    const first = await scriptedServer([{ text: "one" }]);
    const warmUp = await started(ws, first.url);
    await warmUp.session.close("idle");
    const server = await scriptedServer([{ text: "two" }]);
    const setup = await started(ws, server.url);
    try {
      expect(server.connections).toBe(1);
      expect(server.requests).toHaveLength(0);
    } finally {
      await setup.session.close("idle");
    }
  });
});
