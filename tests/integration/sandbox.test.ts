import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { AddressInfo } from "node:net";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { CommandLauncher } from "../../src/tools/builtin/launch.js";
import { childEnv } from "../../src/tools/child-env.js";
import { Sandbox, type SandboxOptions, type SandboxRequest } from "../../src/tools/sandbox/index.js";
import type { AnyTool, ToolResult } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";
import { TEST_KEY } from "../fixtures/harness.js";
import { countingServer, openSandbox, outsideDir, processesWith } from "../fixtures/sandbox.js";

/** The real sandbox through the real bash tool: every assertion is about what reached the disk or the host. */

let base: string;
let root: string;
let ws: Workspace;
let sandbox: Sandbox;
let shells: ShellManager;
let tools: Map<string, AnyTool>;
let outside: ReturnType<typeof outsideDir>;

async function setup(files: Record<string, string> = {}, opts: Partial<SandboxOptions> = {}, env: NodeJS.ProcessEnv = process.env) {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  sandbox = await openSandbox({ workspace: ws, ...opts });
  shells = new ShellManager({ launcher: new CommandLauncher(sandbox, env) });
  tools = new Map(builtinTools({ shells, bashTimeoutMs: 20_000, maxOutputTokens: 8_000, readOnlyCommands: [], tokens: bpeTokenCounter() }).map((t) => [t.name, t]));
}

function run(name: string, args: unknown, opts: { sandbox?: SandboxRequest; signal?: AbortSignal } = {}): Promise<ToolResult> {
  const tool = tools.get(name)!;
  const ctx = { signal: opts.signal ?? new AbortController().signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {}, sandbox: opts.sandbox };
  return tool.execute(tool.params.parse(args), ctx);
}

const bash = (command: string, opts?: { sandbox?: SandboxRequest; signal?: AbortSignal }) => run("bash", { command }, opts);
const exists = (rel: string) => fs.existsSync(path.join(root, rel));
/** The stand-ins go once the last sandboxed process has ended, a moment after the tool returned. */
const standInsGone = (names: string[]) =>
  vi.waitFor(() => expect(names.filter((name) => exists(name)), "stand-ins still in the workspace").toEqual([]), { timeout: 5_000, interval: 10 });

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
}

beforeAll(() => {
  outside = outsideDir();
});

afterAll(() => outside.cleanup());

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-sandbox-test-")));
  root = path.join(base, "ws");
  fs.mkdirSync(root);
  ws = new Workspace(root);
});

afterEach(async () => {
  await shells?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe("the sandbox, through the bash tool", () => {
  it("refuses writes outside the workspace and temp dir, and allows them inside", async () => {
    await setup();
    const marker = path.join(outside.dir, "marker");
    const hostTmp = path.join(base, "tmp-marker");
    const r = await bash(`echo pwned > ${marker}; echo pwned > ${hostTmp}; echo ok > inside.txt && echo ok > /tmp/orca-private-marker && echo wrote`);
    expect(r.ok).toBe(true);
    expect(r.content).toContain("Read-only file system");
    expect(r.content).toContain("wrote");
    expect(r.meta).toMatchObject({ sandboxed: true, sandbox: "workspace-write" });
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(path.join(root, "inside.txt"), "utf8")).toBe("ok\n");
    // /tmp is the session's own: shared by its commands, not the host's.
    expect(fs.existsSync(hostTmp)).toBe(false);
    expect(fs.existsSync("/tmp/orca-private-marker")).toBe(false);
    expect((await bash("cat /tmp/orca-private-marker")).content).toContain("ok");
  });

  it("keeps .git/config and .git/hooks read-only, and .git/hooks cannot be created when missing", async () => {
    git("init", "-q", ".");
    fs.rmSync(path.join(root, ".git", "hooks"), { recursive: true, force: true });
    const config = fs.readFileSync(path.join(root, ".git", "config"), "utf8");
    await setup();
    const r = await bash(
      [
        `printf '[core]\\n\\tfsmonitor = "touch ${outside.dir}/pwned"\\n' >> .git/config`,
        "mkdir -p .git/hooks; echo 'touch pwned' > .git/hooks/pre-commit",
        "echo ../../elsewhere > .git/commondir",
        // Renaming the git dir away and building a new one beside it is the same attack.
        "mv .git .git-old && mkdir .git && echo '[core] fsmonitor = x' > .git/config",
        "echo done",
      ].join("; "),
    );
    expect(r.content).toContain("done");
    expect(r.content).toContain(".git/config: Read-only file system");
    expect(fs.readFileSync(path.join(root, ".git", "config"), "utf8")).toBe(config);
    // The stand-ins lasted as long as the command: once it has ended, nothing of them is left.
    await standInsGone([".git/hooks", ".git/commondir"]);
    expect(exists(".git-old")).toBe(false);
    // The repository still works, inside the sandbox and out.
    const commit = await bash("git -c user.email=a@b -c user.name=a commit -q --allow-empty -m sandboxed && git log --format=%s");
    expect(commit.content).toContain("sandboxed");
    expect(git("log", "--format=%s").trim()).toBe("sandboxed");
    await shells.close();
    expect(exists(".git/hooks")).toBe(false);
    expect(exists(".git/commondir")).toBe(false);
    expect(git("log", "--format=%s").trim()).toBe("sandboxed");
  });

  it("keeps orca's and other tools' settings from being created in the workspace, and leaves no stand-ins behind", async () => {
    await setup();
    const r = await bash(
      [
        "mkdir -p .orca && echo 'permissions: {mode: bypass}' > .orca/config.yaml",
        `echo '{"mcpServers":{"x":{"command":"touch","args":["pwned"]}}}' > .mcp.json`,
        "mkdir -p .claude .agents/skills/x .vscode && echo '{}' > .vscode/tasks.json",
        "git init -q . ; echo done",
      ].join("; "),
    );
    expect(r.content).toContain("done");
    expect(r.content).toContain("Read-only file system");
    // Gone as soon as the command has ended, not at the end of the session.
    await standInsGone([".orca", ".mcp.json", ".claude", ".agents", ".vscode", ".idea", ".git"]);
    await shells.close();
    for (const name of [".orca", ".mcp.json", ".claude", ".agents", ".vscode", ".idea", ".git"]) expect(exists(name), name).toBe(false);
  });

  it("makes read_file deny patterns unreadable to cat and grep, including files made after start-up", async () => {
    await setup({ ".env": "API_TOKEN=supersecret-1\n", "src/app.ts": "export {};\n" }, { denyReadPatterns: [".env*", "secrets/**"] });
    fs.writeFileSync(path.join(root, ".env.local"), "API_TOKEN=supersecret-2\n");
    fs.mkdirSync(path.join(root, "secrets"));
    fs.writeFileSync(path.join(root, "secrets", "key.pem"), "supersecret-3\n");
    const r = await bash("cat .env; cat ./.env.local; cat secrets/key.pem; grep -r supersecret . ; cp .env copy.txt; cat src/app.ts");
    expect(r.content).toContain("cat: .env: Permission denied");
    expect(r.content).not.toContain("supersecret");
    expect(r.content).toContain("export {};");
    expect(exists("copy.txt")).toBe(false);
    // Hidden from commands only: the files are untouched.
    expect(fs.readFileSync(path.join(root, ".env"), "utf8")).toBe("API_TOKEN=supersecret-1\n");
  });

  it("has no network when none is allowed: a loopback server on the host gets no connection", async () => {
    await setup();
    const server = await countingServer();
    try {
      const r = await bash(`(exec 3<>/dev/tcp/127.0.0.1/${server.port} && cat <&3) ; echo "exit=$?"`);
      expect(r.content).not.toContain("hello from the host");
      expect(r.content).toMatch(/exit=[1-9]/);
      expect(server.connections()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("cannot reach the host's Unix sockets in /tmp and /run, and can use its own", async () => {
    await setup();
    const net = await import("node:net");
    const socketPath = path.join(base, "host.sock");
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const probe = (p: string) => `node -e "require('net').connect('${p}').on('error', e => console.log('${path.basename(p)}', e.code)).on('data', d => console.log(String(d)))"`;
      const r = await bash([probe(socketPath), "ls /run", probe("/tmp/own.sock").replace("require", "require('net').createServer(s => s.end('own server')).listen('/tmp/own.sock', () => require")].join("; "));
      expect(r.content).toContain("host.sock ENOENT");
      expect(r.content).not.toContain("hello");
      expect(connections).toBe(0);
      // /run is empty: no Docker socket, no session bus, no systemd.
      expect(r.content).not.toMatch(/docker|dbus|systemd/);
      expect(r.content).toContain("own server");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("with unix_sockets: false, no Unix socket can be made at all, wherever the host's live", async () => {
    await setup({}, { unixSockets: false });
    const net = await import("node:net");
    const socketPath = path.join(root, "in-workspace.sock");
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const r = await bash(`node -e "require('net').connect('${socketPath}').on('error', e => console.log(e.code)).on('data', d => console.log(String(d)))"`);
      expect(r.content).toContain("EPERM");
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("with allow: ['*'] the host's network is reachable (so the refusal above is the sandbox's)", async () => {
    await setup({}, { networkAllow: ["*"] });
    const server = await countingServer();
    try {
      const r = await bash(`exec 3<>/dev/tcp/127.0.0.1/${server.port}; cat <&3`);
      expect(r.content).toContain("hello from the host");
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("gives commands a fresh /proc and an environment without the model key", async () => {
    const env = childEnv({ ...process.env, OPENAI_API_KEY: TEST_KEY, MY_PROVIDER_KEY: "prov-0123456789abcdef" }, { modelKey: "prov-0123456789abcdef" });
    await setup({}, {}, env);
    const r = await bash("cat /proc/self/environ | tr '\\0' '\\n'; grep -a -o -E 'KEY=.{10}' /proc/self/environ; echo; ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | tr '\\0' ' '");
    expect(r.content).not.toContain(TEST_KEY);
    expect(r.content).not.toContain("OPENAI_API_KEY");
    expect(r.content).not.toContain("prov-0123456789abcdef");
    expect(r.content).toContain("PATH=");
    // Only the sandbox's own few processes are visible; pid 1 is bubblewrap's, not the host's init.
    expect(Number(/^(\d+)$/m.exec(r.content)?.[1])).toBeLessThan(10);
    expect(r.content).toMatch(/bwrap/);
  });

  it("keeps a skill under the host's /tmp in sight, read-only, over the private temp dir", async () => {
    const skill = path.join(base, "skills", "tool");
    fs.mkdirSync(skill, { recursive: true });
    fs.writeFileSync(path.join(skill, "run.sh"), "echo skill-ran\n");
    await setup({}, { visible: [skill] });
    for (const mode of ["workspace-write", "read-only"] as const) {
      const r = await bash(`bash ${skill}/run.sh; echo x > ${skill}/written; cat ${base}/ws/../skills/tool/run.sh >/dev/null && echo seen`, { sandbox: mode });
      expect(r.content, mode).toContain("skill-ran");
      expect(r.content, mode).toContain("Read-only file system");
      expect(fs.existsSync(path.join(skill, "written")), mode).toBe(false);
    }
    // What is not a skill stays hidden with the rest of the host's /tmp.
    fs.writeFileSync(path.join(base, "other.txt"), "host tmp\n");
    expect((await bash(`cat ${base}/other.txt; echo end`)).content).toContain("No such file");
  });

  it("attack: a skill dir that is a temp dir itself does not bring the host's /tmp back", async () => {
    fs.writeFileSync(path.join(base, "other.txt"), "host tmp\n");
    await setup({}, { visible: [fs.realpathSync(os.tmpdir()), "/tmp"] });
    expect((await bash(`cat ${base}/other.txt; echo end`)).content).toContain("No such file");
  });

  it("runs a read-only sandbox (plan mode): nothing on disk can be written, not even the temp dir", async () => {
    await setup();
    const r = await bash(`echo x > inside.txt; ls; echo scratch > /tmp/scratch && cat /tmp/scratch`, { sandbox: "read-only" });
    expect(r.content).toContain("Read-only file system");
    expect(r.content).toContain("scratch");
    expect(r.meta).toMatchObject({ sandboxed: true, sandbox: "read-only" });
    expect(exists("inside.txt")).toBe(false);
    // Its temp dir was a scratch space of its own, gone with it.
    expect((await bash("cat /tmp/scratch; echo end")).content).toContain("No such file");
    expect(fs.existsSync("/tmp/scratch")).toBe(false);
  });

  it("runs outside the sandbox only when asked to", async () => {
    await setup();
    const marker = path.join(outside.dir, "approved");
    const r = await bash(`touch ${marker}`, { sandbox: "none" });
    expect(r.meta).toMatchObject({ sandboxed: false, sandbox: "none" });
    expect(fs.existsSync(marker)).toBe(true);
  });

  it("sandboxes background shells too", async () => {
    await setup();
    const marker = path.join(outside.dir, "from-background");
    const started = await run("bash", { command: `touch ${marker}; echo inside > bg.txt; echo finished`, run_in_background: true });
    expect(started.meta).toMatchObject({ sandboxed: true });
    const id = started.meta?.shellId as string;
    await vi.waitFor(async () => expect((await run("bash_output", { shell_id: id })).content).toMatch(/status: exited/), { timeout: 15_000, interval: 50 });
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(path.join(root, "bg.txt"), "utf8")).toBe("inside\n");
  });

  it("cancel kills everything inside the sandbox, daemons included", async () => {
    await setup();
    const controller = new AbortController();
    const pending = bash("setsid sleep 31.4159 & sleep 31.4158 & echo started; wait", { signal: controller.signal });
    await vi.waitFor(() => expect(processesWith("sleep 31.415").length).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ ok: false, error: "bash: cancelled" });
    await vi.waitFor(() => expect(processesWith("31.415")).toEqual([]), { timeout: 5_000, interval: 20 });
  });

  it("a timeout and bash_kill kill sandboxed commands with all they started", async () => {
    await setup();
    const r = await run("bash", { command: "sleep 32.718 & sleep 32.717; echo never", timeout_ms: 300 });
    expect(r.error).toMatch(/timed out/);
    await vi.waitFor(() => expect(processesWith("32.71")).toEqual([]), { timeout: 5_000, interval: 20 });

    const started = await run("bash", { command: "setsid sleep 33.141 & sleep 33.142", run_in_background: true });
    await vi.waitFor(() => expect(processesWith("sleep 33.14").length).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
    await run("bash_kill", { shell_id: started.meta?.shellId });
    await vi.waitFor(() => expect(processesWith("33.14")).toEqual([]), { timeout: 5_000, interval: 20 });
  });

  it("refuses a sandboxed run where there is no sandbox, rather than run it outside", async () => {
    sandbox = Sandbox.unavailable("bubblewrap (bwrap) is not installed");
    shells = new ShellManager({ launcher: new CommandLauncher(sandbox) });
    tools = new Map(builtinTools({ shells, bashTimeoutMs: 20_000, maxOutputTokens: 8_000, readOnlyCommands: [], tokens: bpeTokenCounter() }).map((t) => [t.name, t]));
    const r = await bash("touch ran", { sandbox: "read-only" });
    expect(r.ok).toBe(false);
    expect(r.error).toBe("bash: not run: this command must run in a read-only sandbox, and there is none: bubblewrap (bwrap) is not installed");
    expect(exists("ran")).toBe(false);
    // Unset, a command runs outside and says so.
    const plain = await bash("touch ran");
    expect(plain.meta).toMatchObject({ sandboxed: false });
    expect(exists("ran")).toBe(true);
  });

  it("with an allow-list, reaches listed hosts through the proxy and nothing else", async () => {
    const http = await import("node:http");
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.headers.host}${req.url}`);
      res.end("hello through the proxy\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await setup({}, { networkAllow: [`localhost:${port}`] });
    expect(sandbox.status.network).toBe("allow-list");
    try {
      const allowed = await bash(`curl -sS --max-time 10 http://localhost:${port}/ok`);
      expect(allowed.content).toContain("hello through the proxy");
      const denied = await bash(`curl -sS --max-time 10 http://127.0.0.1:${port}/denied; echo; curl -sS --max-time 5 --noproxy '*' http://localhost:${port}/direct; echo "exit=$?"`);
      expect(denied.content).toContain(`127.0.0.1:${port} is not in sandbox.network.allow`);
      expect(denied.content).toMatch(/exit=[1-9]/);
      expect(seen).toEqual([`localhost:${port}/ok`]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("an allowed host without a port is reached on 443 and 80 only (issue 33: it was open on every port)", async () => {
    const server = await countingServer();
    await setup({}, { networkAllow: ["localhost"] });
    try {
      const plain = await bash(`curl -sS --max-time 10 http://localhost:${server.port}/; echo; curl -sS --max-time 10 -p http://localhost:${server.port}/ -o /dev/null; echo "exit=$?"`);
      expect(plain.content).toContain(`localhost:${server.port} is not in sandbox.network.allow`);
      expect(plain.content).toMatch(/exit=[1-9]/);
      expect(server.connections()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("keeps the stand-ins while a background shell runs, though other commands end, and removes them once it has ended", async () => {
    await setup();
    const started = await run("bash", { command: "while [ ! -f go ]; do sleep 0.02; done; mkdir .orca/agents; echo x > .mcp.json; echo end", run_in_background: true });
    await bash("echo another command");
    // The foreground command has ended; the background shell still holds the stand-ins.
    expect(fs.readdirSync(path.join(root, ".orca"))).toEqual([]);
    const r = await bash("mkdir .claude/x; echo x > go; echo done");
    expect(r.content).toContain("Read-only file system");
    let seen = "";
    await vi.waitFor(
      async () => {
        seen += (await run("bash_output", { shell_id: started.meta?.shellId })).content;
        expect(seen).toMatch(/status: exited/);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(seen).toContain("Read-only file system");
    expect(seen).toContain("end");
    await standInsGone([".orca", ".mcp.json", ".git", ".claude"]);
    await shells.close();
    for (const name of [".orca", ".mcp.json", ".git", ".claude"]) expect(exists(name), name).toBe(false);
  });
});
