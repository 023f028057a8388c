import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

describe("config errors through the bin", () => {
  it("a typo'd key: one line with did-you-mean, exit 2, no request", async () => {
    server = await startScriptedServer([{ text: "never" }]);
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  nmae: gpt-4o\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe("orca: .orca/config.yaml: model.nmae: unknown key; did you mean name?\n");
    expect(server.requests).toHaveLength(0);
  });

  it("broken YAML: the file, line and column", async () => {
    server = await startScriptedServer([{ text: "never" }]);
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  name: gpt-4o\nagent: {max_steps: 5\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^orca: \.orca\/config\.yaml:4:1: invalid YAML: \S[^\n]*\n$/);
    expect(server.requests).toHaveLength(0);
  });

  it("orca doctor runs on a broken config: reports it among its checks and exits 1", async () => {
    ws = tempWorkspace({ ".orca/config.yaml": "permisions:\n  mode: plan\n" });
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
