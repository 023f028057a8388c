import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

describe("config errors through the bin", () => {
  it("a typo'd key: one line with did-you-mean, exit 2, no request", async () => {
    const server = await scriptedServer([{ text: "never" }]);
    const ws = workspace({ ".orca/config.yaml": "model:\n  nmae: gpt-4o\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe("orca: .orca/config.yaml: model.nmae: unknown key; did you mean name?\n");
    expect(server.requests).toHaveLength(0);
  });

  it("broken YAML: the file, line and column", async () => {
    const server = await scriptedServer([{ text: "never" }]);
    const ws = workspace({ ".orca/config.yaml": "model:\n  name: gpt-4o\nagent: {max_steps: 5\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^orca: \.orca\/config\.yaml:4:1: invalid YAML: \S[^\n]*\n$/);
    expect(server.requests).toHaveLength(0);
  });

  it("orca doctor runs on a broken config: reports it among its checks and exits 1", async () => {
    const ws = workspace({ ".orca/config.yaml": "permisions:\n  mode: plan\n" });
    const run = await runOrca(["doctor"], { ws });
    expect(run.code, run.stderr + run.stdout).toBe(1);
    expect(run.stderr).toBe("");
    const lines = run.stdout.split("\n");
    expect(lines).toContain("config: broken: .orca/config.yaml: permisions: unknown key; did you mean permissions?");
    expect(lines).toContain("  the checks below use the built-in defaults");
    // The other checks still ran.
    expect(run.stdout).toMatch(/^sandbox: /m);
    expect(run.stdout).toMatch(/^ {2}git +git \d/m);
    fs.writeFileSync(ws.file(".orca/config.yaml"), "model:\n  name: gpt-4o\n");
    const healthy = await runOrca(["doctor"], { ws });
    expect(healthy.stdout).toMatch(/^config: .*\.orca\/config\.yaml$/m);
    expect(healthy.code, healthy.stdout).toBe(0);
  });
});
