/**
 * Attack: a submodule's git dir lives in the superproject's `.git/modules/<name>`, with its own
 * config and hooks. The user's plain `git status` in the workspace runs git inside each submodule,
 * under that config — so a `core.fsmonitor` written there runs as the user, outside any sandbox.
 * A sandboxed command (here run unasked: accept-edits, sandboxed_commands auto) spells the write so
 * that it names no protected path (`git -C sub config …`); the sandbox must keep that config
 * read-only as it keeps the workspace's own `.git/config`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
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

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** A workspace whose repository has a submodule at sub/ (its git dir in .git/modules/sub). */
function withSubmodule(): TempWorkspace {
  const w = tempWorkspace({ "a.txt": "a\n", "payload": "gitdir: ../elsewhere\n" });
  const lib = path.join(w.home, "lib");
  fs.mkdirSync(lib);
  fs.writeFileSync(path.join(lib, "l.txt"), "l\n");
  git(lib, "init", "-q");
  git(lib, "add", "-A");
  git(lib, "commit", "-qm", "lib");
  git(w.dir, "init", "-q");
  git(w.dir, "submodule", "add", "-q", lib, "sub");
  git(w.dir, "add", "-A");
  git(w.dir, "commit", "-qm", "start");
  return w;
}

const AUTO = "permissions:\n  mode: accept-edits\n  sandboxed_commands: auto\nsandbox:\n  enabled: true\n";

describe("a submodule's git config is as protected as the workspace's own", () => {
  it("a command run unasked in the sandbox cannot set a core.fsmonitor the user's git status would run", async () => {
    ws = withSubmodule();
    const moduleConfig = path.join(ws.dir, ".git", "modules", "sub", "config");
    expect(fs.existsSync(moduleConfig)).toBe(true);
    const marker = path.join(ws.home, "fsmonitor-ran");

    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: `git -C sub config core.fsmonitor 'touch ${marker}; false'` } }] },
      { text: "done" },
    ]);
    orchestra = await testOrchestra(ws, server.url, {
      approver: new HeadlessApprover(false),
      config: AUTO,
    });
    const events: OrcaEvent[] = [];
    orchestra.session.bus.subscribe((e) => events.push(e));
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    // Whether it was asked (and refused, headless) or ran and failed, the config is untouched.
    const decided = events.find((e): e is EventOf<"permission_decided"> => e.type === "permission_decided" && e.tool === "bash");
    expect(decided).toBeDefined();
    expect(fs.readFileSync(moduleConfig, "utf8")).not.toContain("fsmonitor");
    execFileSync("git", ["status"], { cwd: ws.dir, stdio: "ignore" });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a command run unasked in the sandbox cannot point the submodule's .git file at another git dir", async () => {
    ws = withSubmodule();
    const dotGit = fs.readFileSync(ws.file("sub/.git"), "utf8");
    // Names no .git: find's pattern matches it, cp replaces it.
    server = await startScriptedServer([{ toolCalls: [{ name: "bash", args: { command: "find sub -maxdepth 1 -name '.gi?' -exec cp payload {} ';'" } }] }, { text: "done" }]);
    orchestra = await testOrchestra(ws, server.url, { approver: new HeadlessApprover(false), config: AUTO });
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    expect(fs.readFileSync(ws.file("sub/.git"), "utf8")).toBe(dotGit);
  });
});
