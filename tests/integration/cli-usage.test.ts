/**
 * Usage mistakes through the real bin: each is exit 2, exactly one `orca:` line followed by the
 * usage that helps, no parser dump, and nothing sent to the model (the scripted server counts
 * every request). Run without a terminal, orca would otherwise run the words as a headless prompt.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, sessionLogs, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let server: ScriptedServer;
let ws: TempWorkspace;

beforeAll(async () => {
  server = await startScriptedServer(() => ({ text: "answered" }));
  ws = tempWorkspace();
});
afterAll(async () => {
  await server.close();
  ws.cleanup();
});

/** Runs orca and checks the shape every usage error shares; returns the `orca:` line. */
async function usageError(args: string[], opts: { input?: string; env?: Record<string, string | undefined>; url?: boolean } = {}): Promise<{ line: string; stderr: string }> {
  const before = server.requests.length;
  const run = await runOrca([...args, ...(opts.url === false ? [] : ["--base-url", server.url])], { ws, input: opts.input, env: opts.env });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe("");
  const lines = run.stderr.trimEnd().split("\n");
  const orcaLines = lines.filter((l) => l.startsWith("orca:"));
  expect(orcaLines, run.stderr).toHaveLength(1);
  expect(lines[0]).toBe(orcaLines[0]);
  // The usage follows it: the synopsis, and where to find every option.
  expect(run.stderr).toContain("usage: orca [options] [prompt]");
  expect(run.stderr).toContain("orca --help");
  // Node's parser never speaks for orca, and no stack trace leaks.
  expect(run.stderr).not.toMatch(/ERR_PARSE_ARGS|argument is ambiguous|To specify an option argument|\bat .*\.js:\d+/);
  expect(server.requests.length, "a request reached the model").toBe(before);
  return { line: orcaLines[0]!, stderr: run.stderr };
}

describe("usage errors through the bin", () => {
  it("a near miss of a command asks which was meant instead of sending it as a prompt", async () => {
    expect((await usageError(["sesions"])).line).toContain("did you mean `orca sessions`?");
    expect((await usageError(["agnets"])).line).toContain("did you mean `orca agents`?");
    expect((await usageError(["mpc"])).line).toContain("did you mean `orca mcp`?");
    expect((await usageError(["skils"])).line).toContain("did you mean `orca skills`?");
    const { line } = await usageError(["sesions", "-p"]);
    expect(line).toContain("orca -- sesions");
  });

  it("`orca -- sesions` sends the word as the prompt", async () => {
    const before = server.requests.length;
    const run = await runOrca(["-p", "--base-url", server.url, "--", "sesions"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("answered");
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests.at(-1)!.body.messages.at(-1)?.content).toBe("sesions");
  });

  it("a prompt of several words that starts near a command is still a prompt", async () => {
    const before = server.requests.length;
    const run = await runOrca(["-p", "map", "the", "repo", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests.at(-1)!.body.messages.at(-1)?.content).toBe("map the repo");
  });

  it("--max-steps -3 says the value is invalid", async () => {
    const { line, stderr } = await usageError(["-p", "hi", "--max-steps", "-3"]);
    expect(line).toBe('orca: --max-steps "-3" is not valid: give a whole number, 1 or more');
    expect(stderr).toContain("--max-steps N");
    expect((await usageError(["-p", "hi", "--max-steps", "2.5"])).line).toContain('"2.5" is not valid');
    expect((await usageError(["-p", "hi", "--max-steps"])).line).toMatch(/^orca: --max-steps needs a value \(N\)/);
  });

  it("an unknown option is orca's one line, with the nearest option when there is one", async () => {
    expect((await usageError(["-p", "hi", "--frobnicate"])).line).toBe("orca: unknown option --frobnicate");
    expect((await usageError(["-p", "hi", "--modle", "x"])).line).toBe("orca: unknown option --modle: did you mean --model?");
    expect((await usageError(["-p", "hi", "-Z"])).line).toBe("orca: unknown option -Z");
    expect((await usageError(["--print=yes", "hi"])).line).toBe('orca: --print takes no value (got "yes")');
    expect((await usageError(["-p", "hi", "-m", "-y"])).line).toContain('--model needs a value (NAME), and "-y" is an option');
  });

  it("--base-url is checked before any request: no scheme, another scheme, a bad port", async () => {
    const noScheme = await usageError(["-p", "hi", "--base-url", "localhost:11434"], { url: false });
    expect(noScheme.line).toBe('orca: --base-url "localhost:11434" has no scheme (http:// or https://); did you mean --base-url http://localhost:11434/v1?');
    expect((await usageError(["-p", "hi", "--base-url", "ftp://example.com/v1"], { url: false })).line).toContain("http:// or https://");
    expect((await usageError(["-p", "hi", "--base-url", "http://127.0.0.1:99999/v1"], { url: false })).line).toContain("port 99999");
    expect((await usageError(["-p", "hi", "--base-url", "http://"], { url: false })).line).toContain("not a valid URL");
  });

  it("a blank prompt is refused, from the command line or from stdin", async () => {
    expect((await usageError(["-p", "   "])).line).toBe("orca: the prompt is empty: write what orca should do");
    expect((await usageError(["-p"], { input: "" })).line).toMatch(/^orca: no prompt/);
    expect((await usageError(["-p"], { input: "  \n\t\n" })).line).toMatch(/^orca: no prompt/);
  });

  it("other option values and combinations", async () => {
    expect((await usageError(["-p", "hi", "--output-format", "xml"])).line).toContain('--output-format "xml" is not valid');
    expect((await usageError(["-p", "hi", "--permission-mode", "yolo"])).line).toContain('--permission-mode "yolo" is not valid');
    expect((await usageError(["--demo", "-p", "hi"])).line).toContain("--demo");
    expect((await usageError(["-p", "hi", "--all"])).line).toBe("orca: --all only applies to orca sessions");
    expect((await usageError(["sessions", "list"])).line).toContain("orca -- sessions list");
  });
});

describe("configuration errors", () => {
  let cfg: TempWorkspace;
  afterEach(() => cfg?.cleanup());

  it("a config with several wrong values lists every one, a line each, and sends nothing", async () => {
    cfg = tempWorkspace({
      ".orca/config.yaml": [
        "model:",
        "  name: 3",
        "  max_retries: many",
        "  base_url: localhost:11434",
        "agent:",
        "  max_steps: -1",
        "colour: blue",
        "",
      ].join("\n"),
    });
    const before = server.requests.length;
    const run = await runOrca(["-p", "hi"], { ws: cfg, env: { OPENAI_BASE_URL: server.url } });
    expect(run.code, run.stderr).toBe(2);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines).toEqual([
      "orca: .orca/config.yaml: model.name: expected string, got number",
      'orca: .orca/config.yaml: model.base_url: "localhost:11434" has no scheme (http:// or https://); did you mean http://localhost:11434/v1?',
      "orca: .orca/config.yaml: model.max_retries: expected number, got string",
      "orca: .orca/config.yaml: agent.max_steps: expected a number more than 0, got -1",
      "orca: .orca/config.yaml: colour: unknown key",
    ]);
    expect(run.stderr).not.toContain("more)");
    expect(server.requests.length).toBe(before);
  });

  it("OPENAI_BASE_URL without a scheme is one line, exit 2, before any request", async () => {
    cfg = tempWorkspace();
    const run = await runOrca(["-p", "hi"], { ws: cfg, env: { OPENAI_BASE_URL: "localhost:11434" } });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('orca: OPENAI_BASE_URL "localhost:11434" has no scheme (http:// or https://); did you mean http://localhost:11434/v1?');
  });
});

describe("--resume [ID] next to a prompt", () => {
  let res: TempWorkspace;
  let resumeServer: ScriptedServer;
  afterEach(async () => {
    await resumeServer?.close();
    res?.cleanup();
  });

  it("the id after --resume is only the id, the prompt only the prompt, in either order", async () => {
    res = tempWorkspace();
    resumeServer = await startScriptedServer(() => ({ text: "ok" }));
    const first = await runOrca(["-p", "start the job", "--base-url", resumeServer.url], { ws: res });
    expect(first.code, first.stderr).toBe(0);
    const id = readLog(sessionLogs(res)[0]!).events[0]!.sessionId;

    const orders = [
      ["-p", "finish the job", "--resume", id, "--base-url", resumeServer.url],
      ["--resume", id, "-p", "finish the job", "--base-url", resumeServer.url],
      ["-p", "--resume", id, "finish the job", "--base-url", resumeServer.url],
      ["-p", "finish the job", `--resume=${id}`, "--base-url", resumeServer.url],
    ];
    for (const args of orders) {
      const run = await runOrca(args, { ws: res });
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      const users = resumeServer.requests.at(-1)!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
      expect(users[0], args.join(" ")).toBe("start the job");
      expect(users.at(-1), args.join(" ")).toBe("finish the job");
    }
    // Every run continued the one session: one log, no stray session named by the prompt.
    expect(sessionLogs(res)).toHaveLength(1);
  });

  it("--resume with a prompt of several words after it resumes the latest and keeps the prompt whole", async () => {
    res = tempWorkspace();
    resumeServer = await startScriptedServer(() => ({ text: "ok" }));
    await runOrca(["-p", "start the job", "--base-url", resumeServer.url], { ws: res });
    const run = await runOrca(["-p", "--resume", "finish the job", "--base-url", resumeServer.url], { ws: res });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^orca: resuming session /);
    const users = resumeServer.requests.at(-1)!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["start the job", "finish the job"]);
    expect(fs.readdirSync(path.join(res.dataDir, "sessions"))).toHaveLength(1);
  });
});
