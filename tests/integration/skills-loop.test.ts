import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { systemPrompt } from "../../src/model/scripted.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { agentOf, lastToolResult, perAgent, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";

const SKILL = `---
name: release-notes
description: Write release notes from the git log. Use when asked for a changelog or release notes.
allowed-tools: Bash(echo:*)
---
# Release notes
Run scripts/collect.sh, then group the entries by type.
`;

function withSkill(): TempWorkspace {
  const w = workspace({ "README.md": "project\n" });
  const dir = path.join(w.dir, ".orca", "skills", "release-notes");
  fs.mkdirSync(path.join(dir, "scripts"), { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), SKILL);
  fs.writeFileSync(path.join(dir, "scripts", "collect.sh"), "#!/bin/sh\ngit log --oneline\n");
  return w;
}

describe("skills through the agent loop", () => {
  it("the index is in the first request's system message; get_skill returns body and files; allowed-tools pre-approves", async () => {
    const server = await scriptedServer([
      { toolCalls: [{ name: "bash", args: { command: "echo before" } }] },
      { toolCalls: [{ name: "get_skill", args: { name: "release-notes" } }] },
      { toolCalls: [{ name: "bash", args: { command: "echo after" } }] },
      { text: "done" },
    ]);
    const ws = withSkill();
    // Headless without --yes: bash asks, so it is refused — until the skill pre-approves it.
    const setup = await orchestra(ws, server.url, { approver: new HeadlessApprover(false) });
    const result = await setup.session.run("write release notes");
    expect(result.status).toBe("done");

    const system = systemPrompt(server.requests[0]!);
    expect(system).toContain("release-notes");
    expect(system).toContain("Write release notes from the git log.");
    expect(system).toContain(path.join(ws.dir, ".orca", "skills", "release-notes", "SKILL.md"));
    expect(system).toContain("code-review"); // shipped skills are indexed too

    expect(lastToolResult(server.requests[1]!)).toMatch(/denied/);
    const loaded = lastToolResult(server.requests[2]!);
    expect(loaded).toContain("Run scripts/collect.sh");
    expect(loaded).toContain("scripts/collect.sh");
    expect(loaded).toContain(path.join(ws.dir, ".orca", "skills", "release-notes"));
    expect(lastToolResult(server.requests[3]!)).toContain("after");
  });

  it("an agent definition's skills are preloaded into that sub-agent's prompt", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "scribe", task: "notes please" } }] }, { text: "ok" }],
        "scribe-1": [{ text: "notes" }],
      }),
    );
    const ws = withSkill();
    fs.mkdirSync(path.join(ws.dir, ".orca", "agents"), { recursive: true });
    fs.writeFileSync(
      path.join(ws.dir, ".orca", "agents", "scribe.md"),
      "---\nname: scribe\ndescription: Writes notes.\ntools: [read_file]\nskills: [release-notes]\n---\nYou write notes.\n",
    );
    const setup = await orchestra(ws, server.url);
    await setup.session.run("go");
    const scribe = server.requests.find((r) => agentOf(r) === "scribe-1")!;
    const system = systemPrompt(scribe);
    expect(system).toContain("Run scripts/collect.sh, then group the entries by type.");
    // It cannot call get_skill, so it is not shown an index it cannot use.
    expect(system).not.toContain("code-review");
  });

  it("the index respects skills.index_max_chars and says what was left out", async () => {
    const server = await scriptedServer([{ text: "ok" }]);
    const ws = withSkill();
    const setup = await orchestra(ws, server.url, { config: "skills:\n  index_max_chars: 900\n" });
    await setup.session.run("hi");
    const system = systemPrompt(server.requests[0]!);
    expect(system).toMatch(/\d+ more skills? not listed/);
  });
});
