/**
 * Issue 29: the fan-out question in a real terminal. A scripted coordinator delegates six sub-agents
 * in one turn (agents.confirm_fanout is 4 by default): the dashboard asks first, showing the agents,
 * their tasks and the estimate; denying it starts none of them, and the coordinator reads why.
 * Needs a build (`npm run build`); CI is removed from orca's environment (Ink then draws every frame).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentOf, perAgent, toolResults } from "../fixtures/harness.js";
import { orcaInTmux, scriptedServer, workspace } from "./rig.js";

const six = Array.from({ length: 6 }, (_, i) => ({ id: `call_f${i + 1}`, name: "delegate", args: { agent: "explorer", task: `map module ${i + 1} and its callers`, label: `mod ${i + 1}` } }));

describe("the fan-out question in tmux", () => {
  it("six sub-agents at once ask first; denying runs none of them", { timeout: 90_000 }, async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: six }, { text: "FANOUT-DECLINED: nothing was started" }],
        ...Object.fromEntries(six.map((_, i) => [`explorer-${i + 1}`, [{ text: "must not run" }]])),
      }),
    );
    const ws = workspace({ "a.txt": "a\n" });
    // A price, so the question shows an estimate in dollars.
    const config = path.join(ws.home, "orca.yaml");
    fs.writeFileSync(config, "model:\n  price: { input: 0.4, output: 1.6 }\n");
    const t = orcaInTmux("fanout", ws, ["--config", config, "--base-url", server.url, "survey every module"], { columns: 140, rows: 44, env: ["ORCA_DIALOG_ARM_MS=1500"] });

    await t.waitFor(
      "the fan-out question",
      (s) => {
        expect(s).toContain("Fan-out: coordinator wants to start 6 sub-agents at once");
        expect(s).toContain("start none");
        expect(s).toContain("asked because: 6 sub-agents at once (agents.confirm_fanout: 4)");
        expect(s).toMatch(/estimated cost of them all: ~\$\d+\.\d+/);
        for (let i = 1; i <= 6; i++) expect(s).toMatch(new RegExp(`${i}\\. explorer \\[mod ${i}\\] · ~\\$\\d+\\.\\d+ · map module ${i} and its callers`));
        expect(s).toContain("Estimate: each sub-agent's first request");
      },
      40_000,
    );
    // Nothing started while the person is asked.
    expect(server.requests.map(agentOf)).toEqual(["coordinator"]);

    t.keys("n");
    await t.waitFor("the coordinator's answer", (s) => s.includes("FANOUT-DECLINED"), 30_000);
    await t.waitFor("the note in its pane", (s) => {
      expect(s).toContain("fan-out of 6 sub-agents");
      expect(s).toContain("denied: none started");
    });
    expect(server.requests.map(agentOf)).toEqual(["coordinator", "coordinator"]);
    const results = toolResults(server.requests[1]!);
    for (const call of six) expect(results.get(call.id)).toMatch(/^Error: not run: the person declined this fan-out/);
  });
});
