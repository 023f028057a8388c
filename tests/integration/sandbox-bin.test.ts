import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { lastToolResult, runOrca, sessionLogs, TEST_KEY, stderrBesidesReport } from "../fixtures/harness.js";
import { runReplies, scriptedServer, sharedOutsideDir, workspace } from "../fixtures/rig.js";
import { runAndKill } from "../fixtures/crash-kill.js";
import { bin } from "../fixtures/mcp-servers.js";
import { processesWith } from "../fixtures/processes.js";
import { countingServer } from "../fixtures/sandbox.js";

/**
 * The attacks of issue 11 that the sandbox makes moot, through the real bin: a scripted model
 * calls bash headless with --yes (everything that would ask is approved), and the test looks at
 * the disk, the host and what reached the model.
 */

const outside = sharedOutsideDir();

const bash = (command: string): ScriptedReply => ({ toolCalls: [{ name: "bash", args: { command } }] });

const orca = (commands: string[], files: Record<string, string> = {}, extraArgs: string[] = []) => runReplies(commands.map(bash), { files, args: ["--yes", ...extraArgs] });

describe("orca -p --yes: commands run in the sandbox", () => {
  it("cannot write outside the workspace, nor git's config and hooks, nor orca's own settings", async () => {
    const marker = path.join(outside.dir, "marker");
    const { ws, results } = await orca(
      [
        `echo pwned > ${marker}`,
        `git init -q . && rm -rf .git/hooks; echo 'touch ${marker}' > .git/hooks/pre-commit; printf '[core]\\n\\tfsmonitor = "touch ${marker}"\\n' >> .git/config`,
        "mkdir -p .orca && printf 'permissions:\\n  mode: bypass\\n' > .orca/config.yaml; echo '{}' > .mcp.json; echo attempted",
      ],
      {},
    );
    expect(fs.existsSync(marker)).toBe(false);
    expect(results[0]).toContain("Read-only file system");
    // `git init` was refused too: creating .git is creating its config and hooks.
    expect(fs.existsSync(ws.file(".git"))).toBe(false);
    expect(fs.existsSync(ws.file(".orca"))).toBe(false);
    expect(fs.existsSync(ws.file(".mcp.json"))).toBe(false);
    expect(results[2]).toContain("attempted");
  });

  it("cannot change an existing repository's config or add a hook", async () => {
    const ws = workspace({ "a.txt": "a\n" });
    execFileSync("git", ["init", "-q", "."], { cwd: ws.dir });
    const config = fs.readFileSync(ws.file(".git/config"), "utf8");
    const marker = path.join(outside.dir, "hooked");
    const server = await scriptedServer([
      bash(`git config core.fsmonitor 'touch ${marker}'; echo 'touch ${marker}' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; git status --short`),
      { text: "done" },
    ]);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(ws.file(".git/config"), "utf8")).toBe(config);
    expect(fs.existsSync(ws.file(".git/hooks/post-checkout"))).toBe(false);
    execFileSync("git", ["status"], { cwd: ws.dir });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a read_file deny rule hides the file from cat and grep in bash", async () => {
    const { results } = await orca(["cat ./.env; grep -r SECRET . ; cat ../ws/.env"], {
      ".env": "SECRET=hunter2-do-not-show\n",
      ".orca/config.yaml": 'permissions:\n  deny: ["read_file(.env*)"]\n',
    });
    expect(results[0]).toContain("Permission denied");
    expect(results[0]).not.toContain("hunter2");
  });

  it("has no network: a server on the host's loopback gets no connection", async () => {
    const host = await countingServer();
    try {
      const { results } = await orca([`curl -sS --max-time 5 http://127.0.0.1:${host.port}/; echo "exit=$?"`]);
      expect(results[0]).toMatch(/exit=[1-9]/);
      expect(host.connections()).toBe(0);
    } finally {
      await host.close();
    }
  });

  it("an allowed host is reached on 443 and 80, not on every port; `host:port` opens that one (issue 33)", async () => {
    const seen: string[] = [];
    const host = http.createServer((req, res) => {
      seen.push(req.url ?? "");
      res.end("hello over http\n");
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    const port = (host.address() as AddressInfo).port;
    try {
      const curl = (path: string) => `curl -sS --max-time 10 http://localhost:${port}/${path}; echo "exit=$?"`;
      const open = await orca([curl("any-port")], { ".orca/config.yaml": 'sandbox:\n  network:\n    allow: ["localhost"]\n' });
      expect(open.results[0]).toContain(`localhost:${port} is not in sandbox.network.allow`);
      expect(seen).toEqual([]);
      await open.server.close();
      open.ws.cleanup();
      const listed = await orca([curl("listed")], { ".orca/config.yaml": `sandbox:\n  network:\n    allow: ["localhost:${port}"]\n` });
      expect(listed.results[0]).toContain("hello over http");
      expect(seen).toEqual(["/listed"]);
    } finally {
      host.closeAllConnections();
      await new Promise((resolve) => host.close(resolve));
    }
  });

  it("commands do not get the model key; with pass_model_key they do, and the log still redacts it", async () => {
    const probe = "grep -a -o -E 'KEY=.{12}' /proc/self/environ; env | grep -c API_KEY";
    const hidden = await orca([probe]);
    expect(hidden.results[0]).not.toContain("sk-test");
    expect(hidden.results[0]).toMatch(/^0$/m);
    await hidden.server.close();
    hidden.ws.cleanup();

    const coloured = "grep --color=always -a -o -E 'KEY=.{20}' /proc/self/environ";
    const passed = await orca([coloured], { ".orca/config.yaml": "tools:\n  pass_model_key: true\n" }, ["--output-format", "stream-json"]);
    expect(passed.results[0]).toContain("sk-test-0123");
    // stream-json and the session log carry the tool result: no 8 characters of the key in a row.
    const log = fs.readFileSync(sessionLogs(passed.ws)[0]!, "utf8");
    for (const text of [passed.run.stdout, log]) {
      expect(text).toContain("[redacted]");
      for (let i = 0; i + 8 <= TEST_KEY.length; i++) expect(text).not.toContain(TEST_KEY.slice(i, i + 8));
    }
  });

  it("says at start-up when commands cannot be sandboxed", async () => {
    const server = await scriptedServer([{ text: "done" }]);
    const ws = workspace();
    // A PATH with node and bash but no bwrap.
    const bin = path.join(ws.home, "bin");
    fs.mkdirSync(bin);
    for (const tool of ["bash", "sh"]) fs.symlinkSync(execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim(), path.join(bin, tool));
    const run = await runOrca(["-p", "go", "--base-url", server.url], { ws, env: { PATH: bin } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("orca: warning: sandbox unavailable: bubblewrap (bwrap) is not installed");
    const doctor = await runOrca(["doctor"], { ws, env: { PATH: bin } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain("sandbox: unavailable: bubblewrap (bwrap) is not installed");
    expect(doctor.stdout).toMatch(/bwrap +not found/);
    const healthy = await runOrca(["doctor"], { ws });
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/^sandbox: on \(bubblewrap [\d.]+\) · no network$/m);
    expect(healthy.stdout).toMatch(/^ {2}socat +socat \d/m);

    fs.mkdirSync(ws.file(".orca"));
    fs.writeFileSync(ws.file(".orca/config.yaml"), "sandbox:\n  enabled: true\n");
    const required = await runOrca(["-p", "go", "--base-url", server.url], { ws, env: { PATH: bin } });
    expect(required.code).toBe(2);
    expect(required.stderr.trim()).toBe("orca: sandbox.enabled is true but bubblewrap (bwrap) is not installed; install it, e.g. apt-get install bubblewrap");
  });

  it("an MCP stdio server gets its configured env, not orca's (no model key)", async () => {
    const server = await scriptedServer([{ toolCalls: [{ name: "mcp__everything__get-env", args: {} }] }, { text: "done" }]);
    const ws = workspace({
      ".orca/config.yaml": `mcp_servers:\n  everything:\n    command: ${JSON.stringify(bin("mcp-server-everything"))}\n    env: { CONFIGURED_FOR_SERVER: "yes-configured" }\n`,
    });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, env: { ANTHROPIC_API_KEY: "sk-ant-0123456789abcdef", ORCA_ONLY_VARIABLE: "leak" }, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const result = lastToolResult(server.requests[1]!);
    expect(result).toContain("yes-configured");
    expect(result).toContain('"PATH"');
    for (const leaked of ["OPENAI_API_KEY", TEST_KEY, "ANTHROPIC_API_KEY", "sk-ant-0123456789abcdef", "ORCA_ONLY_VARIABLE"]) expect(result).not.toContain(leaked);
  }, 90_000);

  it("after orca is killed mid-command, the sandbox dies with it and the next start removes its stand-ins", async () => {
    let server = await scriptedServer([bash("touch started; sleep 30.0505"), { kind: "hang" }]);
    const ws = workspace();
    // A temp dir of their own: any other orca starting meanwhile (tests run in parallel) would
    // clean up after the killed one before this test looks.
    const tmp = path.join(ws.home, "tmp");
    fs.mkdirSync(tmp);
    await runAndKill(["-p", "go", "--base-url", server.url, "--yes"], ws, () => fs.existsSync(ws.file("started")), "the command to start", { TMPDIR: tmp });
    // bwrap --die-with-parent: nothing of the command outlives orca.
    await vi.waitFor(() => expect(processesWith("30.0505"), "the sandbox outlived orca").toEqual([]), { timeout: 5_000, interval: 20 });
    // Left behind by the kill: empty stand-ins.
    expect(fs.readdirSync(ws.file(".mcp.json"))).toEqual([]);
    await server.close();
    server = await scriptedServer([{ text: "clean" }]);
    const next = await runOrca(["-p", "again", "--base-url", server.url], { ws, env: { TMPDIR: tmp } });
    expect(stderrBesidesReport(next.stderr)).toBe("");
    expect(next.code).toBe(0);
    expect(fs.readdirSync(ws.dir).sort()).toEqual(["started"]);
  });
});
