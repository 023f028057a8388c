/**
 * Hooks run where their author expects (issue 26), through the real bin and real bwrap: a hook in
 * the user's own --config runs as the user (it can read its script outside the workspace and
 * block the call it exists to block); a workspace's hook runs in the command sandbox; a hook that
 * could not run is said, in the transcript and on stderr, every time, naming the call it let through.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastToolResult, runOrca } from "../fixtures/harness.js";
import { scriptedServer, sharedOutsideDir, workspace } from "../fixtures/rig.js";

const outside = sharedOutsideDir();

const bash = (command: string) => ({ toolCalls: [{ name: "bash", args: { command } }] });
const preToolUse = (command: string) => `hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ${JSON.stringify(command)}\n`;

describe("hooks and the sandbox", () => {
  it("the user's own PreToolUse hook (in --config, its script under /tmp, which the sandbox hides) runs as the user and blocks rm", async () => {
    const ws = workspace({ f: "keep me\n" });
    const script = path.join(ws.home, "block-rm.cjs");
    fs.writeFileSync(
      script,
      `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s).tool_input.command;if(/\\brm\\b/.test(c)){console.error("no rm here");process.exit(2)}process.exit(0)});\n`,
    );
    const server = await scriptedServer([bash("rm f"), { text: "done" }]);
    const config = path.join(ws.home, "my-config.yaml");
    fs.writeFileSync(config, `permissions:\n  allow: ["bash"]\n${preToolUse(`node ${script}`)}`);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", config], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(ws.read("f")).toBe("keep me\n");
    expect(lastToolResult(server.requests[1]!)).toContain("denied by a PreToolUse hook: no rm here");
  });

  it("a workspace's own hook runs in the sandbox: it cannot write outside the workspace", async () => {
    const marker = path.join(outside.dir, "workspace-hook-ran");
    const server = await scriptedServer([bash("echo hi"), { text: "done" }]);
    const ws = workspace({ ".orca/config.yaml": `permissions:\n  allow: ["bash"]\n${preToolUse(`touch ${marker}`)}` });
    const run = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a hook that could not run is said every time, on stderr and in the transcript, naming the call it let through", async () => {
    const server = await scriptedServer([bash("echo one"), bash("echo two"), { text: "done" }]);
    const ws = workspace();
    const config = path.join(ws.home, "my-config.yaml");
    fs.writeFileSync(config, `permissions:\n  allow: ["bash"]\n${preToolUse("/nonexistent/guard.sh")}`);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", config, "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    for (const call of ["echo one", "echo two"]) {
      const said = "hook PreToolUse \\(/nonexistent/guard\\.sh\\) could not run";
      expect(run.stderr).toMatch(new RegExp(`orca: ${said} \\(.*\\); the bash call \`${call}\` went on without its decision`));
      expect(run.stdout).toMatch(new RegExp(`"type":"error"[^\\n]*${said}[^\\n]*the bash call \`${call}\``));
    }
  });
});
