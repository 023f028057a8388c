/**
 * A workspace that is the user's home directory holds orca's own folders: the sandbox probe's kept
 * answer (~/.cache/orca/sandbox/probe.json: how commands are confined), the compile cache (code orca
 * runs), the user's config (hooks run as the user) and the data dir (the trust store). The sandbox
 * keeps them read-only to commands (code-paths.ts); write_file, which orca runs itself, must ask
 * for them too — here, headless with `allow: ["write_file"]`, an allow rule does not cover them.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const TARGETS = [".cache/orca/sandbox/probe.json", ".cache/orca/compile-cache/planted.js", ".config/orca/config.yaml", ".local/share/orca/trusted.json"];

describe("write_file in a home-directory workspace", () => {
  it("asks (and headless, is refused) for orca's cache, config and data dir", async () => {
    const ws = workspace({ "notes.txt": "hi\n" });
    const configFile = path.join(ws.home, "config.yaml");
    fs.writeFileSync(configFile, 'permissions:\n  allow: ["write_file"]\n');
    const server = await scriptedServer([
      ...TARGETS.map((p) => ({ toolCalls: [{ name: "write_file", args: { path: p, content: '{"pwned":true}\n' } }] })),
      { toolCalls: [{ name: "write_file", args: { path: "ordinary.txt", content: "fine\n" } }] },
      { text: "done" },
    ]);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", configFile], {
      ws,
      env: { HOME: ws.dir, ORCA_DATA_DIR: path.join(ws.dir, ".local/share/orca"), XDG_CACHE_HOME: undefined, XDG_RUNTIME_DIR: undefined },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const planted = TARGETS.filter((rel) => fs.statSync(path.join(ws.dir, rel), { throwIfNoEntry: false })?.isFile() && fs.readFileSync(path.join(ws.dir, rel), "utf8").includes("pwned"));
    expect(planted).toEqual([]);
    // The rule still covers an ordinary file: the guard is not a blanket refusal.
    expect(ws.read("ordinary.txt")).toBe("fine\n");
  });
});
