/**
 * The hook runner and the Hooks facade with real shell scripts as hooks: what they read on stdin,
 * what their exit codes and stdout decide, their timeouts and process groups, and Claude Code
 * settings run unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { EventInput } from "../../src/events/types.js";
import { fromClaudeSettings, loadHooks, type ConfiguredHook } from "../../src/hooks/config.js";
import { Hooks, type HooksOptions } from "../../src/hooks/hooks.js";
import type { HookAgent } from "../../src/hooks/payload.js";
import { shellCommandOf } from "../../src/hooks/process.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { alive } from "../fixtures/processes.js";

let ws: TempWorkspace;
let events: EventInput[];
let made: Hooks[];

beforeEach(() => {
  ws = tempWorkspace();
  events = [];
  made = [];
});

afterEach(() => {
  for (const h of made) h.killAllSync();
  ws.cleanup();
});

const COORDINATOR: HookAgent = { id: "coordinator", type: "coordinator" };
const EDITOR: HookAgent = { id: "editor-1", type: "editor", parentId: "coordinator" };

/** A hook script in the workspace, executable. */
function script(name: string, body: string): string {
  const file = ws.file(`.hooks/${name}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  return file;
}

function configured(settings: Record<string, unknown>): ConfiguredHook[] {
  const parsed = fromClaudeSettings(settings, { kind: "config", path: path.join(ws.home, "config.yaml") });
  expect(parsed.warnings).toEqual([]);
  return parsed.hooks;
}

function hooksFor(settings: Record<string, unknown>, extra: Partial<HooksOptions> = {}): Hooks {
  const hooks = new Hooks({
    hooks: configured(settings),
    session: { sessionId: "S1", transcriptPath: () => path.join(ws.dataDir, "sessions", "S1.jsonl"), cwd: ws.dir, permissionMode: () => "default" },
    env: { PATH: process.env.PATH, HOME: ws.home },
    emit: (event) => events.push(event),
    ...extra,
  });
  made.push(hooks);
  return hooks;
}

const one = (event: string, command: string, group: Record<string, unknown> = {}, handler: Record<string, unknown> = {}) => ({
  [event]: [{ ...group, hooks: [{ type: "command", command, ...handler }] }],
});

const ofType = <T extends EventInput["type"]>(type: T) => events.filter((e): e is Extract<EventInput, { type: T }> => e.type === type);

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

describe("PreToolUse", () => {
  it("exit 2 denies: stderr is the reason the model reads, recorded as a permission decision by hook", async () => {
    const stdin = ws.file("stdin.json");
    const hook = script("block-rm.sh", `cat > '${stdin}'\necho "Blocked: rm commands are not allowed" >&2\nexit 2`);
    const hooks = hooksFor(one("PreToolUse", hook, { matcher: "Bash" }));
    const outcome = await hooks.preToolUse(EDITOR, { id: "call_7", name: "bash", args: { command: "rm -rf build" } });
    expect(outcome).toMatchObject({ decision: "deny", reason: "Blocked: rm commands are not allowed", rule: `hook PreToolUse: ${hook}` });
    expect(readJson(stdin)).toEqual({
      session_id: "S1",
      transcript_path: path.join(ws.dataDir, "sessions", "S1.jsonl"),
      cwd: ws.dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      agent_id: "editor-1",
      agent_type: "editor",
      tool_name: "bash",
      tool_name_cc: "Bash",
      tool_input: { command: "rm -rf build" },
      tool_use_id: "call_7",
    });
    const [started] = ofType("hook_started");
    const [finished] = ofType("hook_finished");
    expect(started).toMatchObject({ agentId: "editor-1", parentId: "coordinator", hookEvent: "PreToolUse", command: hook, callId: "call_7" });
    expect(finished).toMatchObject({ hookId: started!.hookId, exitCode: 2, outcome: "ok", decision: "deny", message: "Blocked: rm commands are not allowed" });
    expect(finished!.durationMs).toBeGreaterThanOrEqual(0);
    expect(ofType("permission_decided")).toEqual([
      expect.objectContaining({ callId: "call_7", tool: "bash", decision: "deny", by: "hook", rule: `hook PreToolUse: ${hook}`, reason: "Blocked: rm commands are not allowed" }),
    ]);
  });

  it("a matcher that does not match runs nothing, and no hook means no cost at all", async () => {
    const marker = ws.file("ran");
    const hooks = hooksFor(one("PreToolUse", `touch '${marker}'`, { matcher: "Edit|Write" }));
    expect(await hooks.preToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "ls" } })).toEqual({ additionalContext: [], stop: undefined });
    expect(await hooks.postToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "ls" } }, { ok: true, content: "" }, 1)).toEqual({ feedback: [], additionalContext: [] });
    expect(fs.existsSync(marker)).toBe(false);
    expect(events).toEqual([]);
    await hooks.preToolUse(COORDINATOR, { id: "c", name: "write_file", args: { path: "a", content: "" } });
    expect(fs.existsSync(marker)).toBe(true);
  });

  it("JSON on stdout rewrites the input (updatedInput), folded back into orca's argument names", async () => {
    const hook = script(
      "redirect.sh",
      `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "safe path", updatedInput: (.tool_input + {file_path: (.cwd + "/safe/" + (.tool_input.file_path | split("/") | last))})}}'`,
    );
    const hooks = hooksFor(one("PreToolUse", hook, { matcher: "Write" }));
    const outcome = await hooks.preToolUse(COORDINATOR, { id: "c1", name: "write_file", args: { path: "secrets/key.txt", content: "x" } });
    expect(outcome).toMatchObject({ decision: "allow", reason: "safe path", updatedInput: { path: path.join(ws.dir, "safe", "key.txt"), content: "x" } });
    expect(outcome.updatedInput).not.toHaveProperty("file_path");
    // An allow is not recorded here: the permission check (deny and ask rules) still has its say.
    expect(ofType("permission_decided")).toEqual([]);
  });

  it("a hook that sleeps past its timeout is killed with its children; the call goes on undecided", async () => {
    const pids = ws.file("pids");
    const hook = script("slow.sh", `echo $$ >> '${pids}'\nsleep 30 &\necho $! >> '${pids}'\nwait`);
    const hooks = hooksFor(one("PreToolUse", hook, {}, { timeout: 0.5 }));
    const outcome = await hooks.preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "ls" } });
    expect(outcome.decision).toBeUndefined();
    const finished = ofType("hook_finished")[0]!;
    expect(finished).toMatchObject({ outcome: "timeout", exitCode: null, decision: "none", message: "timed out after 0.5 s and was killed" });
    const [leader, child] = fs.readFileSync(pids, "utf8").trim().split("\n").map(Number);
    expect(child).toBeGreaterThan(0);
    expect(alive(leader!)).toBe(false);
    expect(alive(child!)).toBe(false);
  });

  it("a group that ignores SIGTERM is killed with SIGKILL", async () => {
    const pids = ws.file("pids");
    const hook = script("stubborn.sh", `trap '' TERM\nsleep 30 &\necho $! >> '${pids}'\nwait`);
    const hooks = hooksFor(one("PreToolUse", hook, {}, { timeout: 0.3 }));
    await hooks.preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "ls" } });
    expect(ofType("hook_finished")[0]).toMatchObject({ outcome: "timeout" });
    expect(alive(Number(fs.readFileSync(pids, "utf8").trim()))).toBe(false);
  });

  it("cancelling the call kills the running hook's process group", async () => {
    const pids = ws.file("pids");
    const hook = script("wait.sh", `sleep 30 &\necho $! >> '${pids}'\nwait`);
    const hooks = hooksFor(one("PreToolUse", hook));
    const controller = new AbortController();
    const pending = hooks.preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "ls" } }, { signal: controller.signal });
    await vi.waitFor(() => expect(fs.readFileSync(pids, "utf8")).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 20 });
    controller.abort();
    expect((await pending).decision).toBeUndefined();
    expect(ofType("hook_finished")[0]).toMatchObject({ outcome: "cancelled", exitCode: null });
    expect(alive(Number(fs.readFileSync(pids, "utf8").trim()))).toBe(false);
  });

  it("a hook that finishes leaves nothing running behind it", async () => {
    const pids = ws.file("pids");
    const hook = script("leaves.sh", `sleep 30 &\necho $! >> '${pids}'\nexit 0`);
    await hooksFor(one("PreToolUse", hook)).preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "ls" } });
    expect(alive(Number(fs.readFileSync(pids, "utf8").trim()))).toBe(false);
  });

  it("matching hooks run in parallel, and one handler listed twice runs once", async () => {
    // Each hook waits for the other's marker: run one after the other, the first would time out.
    const a = ws.file("a");
    const b = ws.file("b");
    const count = ws.file("count");
    const waitFor = (mine: string, other: string) => `touch '${mine}'\nfor i in $(seq 200); do [ -e '${other}' ] && exit 0; sleep 0.05; done\nexit 1`;
    const hookA = script("a.sh", waitFor(a, b));
    const hookB = script("b.sh", waitFor(b, a));
    const counter = script("count.sh", `echo x >> '${count}'`);
    const hooks = hooksFor({
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: hookA }, { type: "command", command: counter }] },
        { matcher: "bash", hooks: [{ type: "command", command: hookB }, { type: "command", command: counter }] },
      ],
    });
    await hooks.preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "ls" } });
    const finished = ofType("hook_finished");
    expect(finished.map((e) => [e.command, e.exitCode])).toEqual(
      expect.arrayContaining([
        [hookA, 0],
        [hookB, 0],
        [counter, 0],
      ]),
    );
    expect(finished).toHaveLength(3);
    expect(fs.readFileSync(count, "utf8")).toBe("x\n");
  });

  it("an `if` rule filters with the caller's rule matcher, in orca's names", async () => {
    const marker = ws.file("ran");
    const hooks = hooksFor(one("PreToolUse", `touch '${marker}'`, { matcher: "Bash" }, { if: "Bash(rm *)" }));
    const seen: string[] = [];
    const ruleMatches = (rule: string) => (seen.push(rule), false);
    await hooks.preToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "ls" } }, { ruleMatches });
    expect(seen).toEqual(["bash(rm *)"]);
    expect(fs.existsSync(marker)).toBe(false);
    await hooks.preToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "rm x" } }, { ruleMatches: () => true });
    expect(fs.existsSync(marker)).toBe(true);
  });
});

describe("the hook's process", () => {
  it("runs in the project with CLAUDE_PROJECT_DIR and ORCA_PROJECT_DIR set, without orca's model key", async () => {
    const out = ws.file("env.txt");
    const hooks = hooksFor(one("Stop", `{ pwd; echo "$CLAUDE_PROJECT_DIR"; echo "$ORCA_PROJECT_DIR"; echo "key=$OPENAI_API_KEY"; echo "other=$OTHER"; } > '${out}'`), {
      env: { PATH: process.env.PATH, OPENAI_API_KEY: "sk-model-key", OTHER: "kept" },
      secrets: ["sk-model-key"],
    });
    await hooks.stop(COORDINATOR, { status: "done", lastAssistantMessage: "done", canContinue: true });
    expect(fs.readFileSync(out, "utf8")).toBe(`${ws.dir}\n${ws.dir}\n${ws.dir}\nkey=\nother=kept\n`);
  });

  it("a sandbox's wrap function decides what is started", async () => {
    const out = ws.file("wrapped");
    const hooks = hooksFor(one("Stop", `echo "$WRAPPED" > '${out}'`), {
      wrap: (spec) => ({ ...spec, file: "env", args: ["WRAPPED=yes", spec.file, ...spec.args] }),
    });
    await hooks.stop(COORDINATOR, { status: "done", lastAssistantMessage: "", canContinue: true });
    expect(fs.readFileSync(out, "utf8")).toBe("yes\n");
  });

  it("setCommandWrapper connects a sandbox later: an async wrapper, its fd 3 payload, and the command line it wraps", async () => {
    const out = ws.file("sandboxed");
    const seen: string[] = [];
    const hooks = hooksFor(one("Stop", `echo "$(cat <&3) ran: $ORCA_SANDBOX" > '${out}'`));
    hooks.setCommandWrapper(async (spec) => {
      seen.push(shellCommandOf(spec));
      await new Promise((resolve) => setImmediate(resolve));
      return { ...spec, env: { ...spec.env, ORCA_SANDBOX: "bwrap" }, fd3: Buffer.from("filter") };
    });
    await hooks.stop(COORDINATOR, { status: "done", lastAssistantMessage: "", canContinue: true });
    expect(fs.readFileSync(out, "utf8")).toBe("filter ran: bwrap\n");
    expect(seen).toEqual([`echo "$(cat <&3) ran: $ORCA_SANDBOX" > '${out}'`]);
    // An exec-form hook becomes one safely quoted command line.
    expect(shellCommandOf({ file: "/opt/my hooks/check.sh", args: ["--mode", "it's"] })).toBe(`'/opt/my hooks/check.sh' --mode 'it'\\''s'`);
  });

  it("a wrapper that throws fails that hook only, as a warning", async () => {
    const hooks = hooksFor(one("PreToolUse", "true"), {
      wrap: () => {
        throw new Error("sandbox unavailable");
      },
    });
    expect((await hooks.preToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "ls" } })).decision).toBeUndefined();
    expect(ofType("hook_finished")[0]).toMatchObject({ outcome: "error", exitCode: null, message: "could not start: sandbox unavailable" });
  });

  it("a hook that cannot start is a warning, not a block", async () => {
    const hooks = hooksFor(one("PreToolUse", "/nonexistent/hook.sh"));
    expect((await hooks.preToolUse(COORDINATOR, { id: "c", name: "bash", args: { command: "ls" } })).decision).toBeUndefined();
    expect(ofType("hook_finished")[0]).toMatchObject({ outcome: "error", exitCode: 127, decision: "none" });
    expect(ofType("hook_finished")[0]!.message).toMatch(/^Failed with non-blocking status code 127: .*No such file or directory/);
  });
});

describe("other events", () => {
  it("PostToolUse receives tool_response; exit 2's stderr and updatedToolOutput reach the model", async () => {
    const stdin = ws.file("post.json");
    const lint = script("lint.sh", `cat > '${stdin}'\necho "lint: missing semicolon" >&2\nexit 2`);
    const redact = script("redact.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]", "additionalContext": "file is generated"}}'`);
    const hooks = hooksFor({ PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: lint }, { type: "command", command: redact }] }] });
    const call = { id: "c9", name: "edit_file", args: { path: "src/a.ts", old_string: "a", new_string: "b" } };
    const outcome = await hooks.postToolUse(COORDINATOR, call, { ok: true, content: "edited src/a.ts" }, 12);
    expect(outcome).toEqual({ feedback: ["lint: missing semicolon"], additionalContext: ["file is generated"], updatedContent: "[redacted]", stop: undefined });
    expect(readJson(stdin)).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "edit_file",
      tool_name_cc: "Edit",
      tool_input: { path: "src/a.ts", file_path: ws.file("src/a.ts") },
      tool_response: { success: true, content: "edited src/a.ts", filePath: ws.file("src/a.ts") },
      tool_use_id: "c9",
      duration_ms: 12,
    });
  });

  it("UserPromptSubmit: plain stdout becomes context; exit 2 erases the prompt", async () => {
    const context = hooksFor(one("UserPromptSubmit", `echo "Current branch: $(echo main)"`));
    expect(await context.userPromptSubmit(COORDINATOR, "fix it")).toEqual({ additionalContext: ["Current branch: main"], stop: undefined });
    const block = hooksFor(one("UserPromptSubmit", `grep -q password && { echo "no secrets in prompts" >&2; exit 2; }; exit 0`));
    expect(await block.userPromptSubmit(COORDINATOR, "my password is hunter2")).toMatchObject({ block: { reason: "no secrets in prompts" } });
    expect(await block.userPromptSubmit(COORDINATOR, "hello")).not.toHaveProperty("block");
  });

  it("Stop: decision block keeps the agent going once, and stop_hook_active is true the second time", async () => {
    const log = ws.file("stop.log");
    const hook = script("stop.sh", `input=$(cat)\necho "$input" >> '${log}'\n[ "$(jq -r .stop_hook_active <<<"$input")" = true ] && exit 0\necho '{"decision": "block", "reason": "run the tests first"}'`);
    const hooks = hooksFor(one("Stop", hook));
    const first = await hooks.stop(COORDINATOR, { status: "done", lastAssistantMessage: "All done.", canContinue: true });
    expect(first).toEqual({ continueWith: "run the tests first", stopHookActive: false, stop: undefined });
    const second = await hooks.stop(COORDINATOR, { status: "done", lastAssistantMessage: "Tests pass.", canContinue: true });
    expect(second).toEqual({ stopHookActive: true, stop: undefined });
    const sent = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(sent.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message, s.status])).toEqual([
      ["Stop", false, "All done.", "done"],
      ["Stop", true, "Tests pass.", "done"],
    ]);
  });

  it("SubagentStop fires exactly once for every sub-agent that started, however it ended", async () => {
    const log = ws.file("subagents.log");
    const hooks = hooksFor({
      SubagentStart: [{ matcher: "editor|tester", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "be brief"}}'` }] }],
      SubagentStop: [{ hooks: [{ type: "command", command: `jq -c '[.agent_id, .agent_type, .status, .agent_transcript_path != null]' >> '${log}'` }] }],
    });
    const agents: HookAgent[] = [
      { id: "editor-1", type: "editor", parentId: "coordinator" },
      { id: "tester-1", type: "tester", parentId: "coordinator" },
      { id: "explorer-1", type: "explorer", parentId: "coordinator" },
    ];
    const starts = await Promise.all(agents.map((a) => hooks.subagentStart(a)));
    expect(starts.map((s) => s.additionalContext)).toEqual([["be brief"], ["be brief"], []]);
    await hooks.subagentStop(agents[0]!, { status: "done", lastAssistantMessage: "ok", canContinue: true });
    await hooks.subagentStop(agents[1]!, { status: "max_steps", lastAssistantMessage: "", canContinue: false });
    // The third is still running when the process is told to exit: the shutdown path settles it.
    await hooks.settleSubagents({ deadlineMs: 2_000 });
    await hooks.settleSubagents({ deadlineMs: 2_000 });
    await hooks.subagentStop(agents[0]!, { status: "done", lastAssistantMessage: "again", canContinue: true });
    const lines = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as unknown[]);
    expect(lines).toEqual([
      ["editor-1", "editor", "done", true],
      ["tester-1", "tester", "max_steps", true],
      ["explorer-1", "explorer", "cancelled", true],
    ]);
    expect(ofType("hook_finished").filter((e) => e.hookEvent === "SubagentStop").map((e) => e.agentId)).toEqual(["editor-1", "tester-1", "explorer-1"]);
  });

  it("a shutdown that arrives while a sub-agent's SubagentStop runs waits for it instead of firing a second", async () => {
    const log = ws.file("stops.log");
    const gate = ws.file("gate");
    // The hook waits for the gate file, so the shutdown surely comes while it runs.
    const hooks = hooksFor(one("SubagentStop", `jq -c '[.agent_id, .status]' >> '${log}'; while [ ! -e '${gate}' ]; do sleep 0.02; done`));
    await hooks.subagentStart(EDITOR);
    const stopping = hooks.subagentStop(EDITOR, { status: "cancelled", lastAssistantMessage: "", canContinue: false });
    await vi.waitFor(() => expect(fs.existsSync(log)).toBe(true));
    const settled = hooks.settleSubagents({ deadlineMs: 5_000 });
    fs.writeFileSync(gate, "");
    await Promise.all([stopping, settled]);
    expect(fs.readFileSync(log, "utf8")).toBe('["editor-1","cancelled"]\n');
  });

  it("the shutdown path's deadline cuts a slow SubagentStop hook, and kills it", async () => {
    const pids = ws.file("pids");
    const hooks = hooksFor(one("SubagentStop", `echo $$ >> '${pids}'; sleep 30`));
    await hooks.subagentStart(EDITOR);
    await hooks.settleSubagents({ deadlineMs: 300 });
    expect(ofType("hook_finished")[0]).toMatchObject({ agentId: "editor-1", outcome: "timeout", message: "timed out after 0.3 s and was killed" });
    expect(alive(Number(fs.readFileSync(pids, "utf8").trim()))).toBe(false);
  });

  it("PermissionRequest: a hook answers for the user; deny beats allow and is recorded", async () => {
    const hooks = hooksFor({
      PermissionRequest: [
        { matcher: "Bash", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'` }] },
        { matcher: "bash", hooks: [{ type: "command", command: `grep -q deploy && echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no deploys"}}}'; exit 0` }] },
      ],
    });
    expect(await hooks.permissionRequest(COORDINATOR, { id: "p1", name: "bash", args: { command: "npm run deploy" } })).toMatchObject({ behavior: "deny", message: "no deploys" });
    expect(await hooks.permissionRequest(COORDINATOR, { id: "p2", name: "bash", args: { command: "npm test" } })).toMatchObject({ behavior: "allow" });
    expect(ofType("permission_decided").map((e) => [e.callId, e.decision, e.by])).toEqual([
      ["p1", "deny", "hook"],
      ["p2", "allow", "hook"],
    ]);
  });

  it("a block cannot keep a cancelled sub-agent going: its SubagentStop is still final", async () => {
    const hooks = hooksFor(one("SubagentStop", `echo '{"decision": "block", "reason": "not yet"}'`));
    await hooks.subagentStart(EDITOR);
    expect(await hooks.subagentStop(EDITOR, { status: "cancelled", lastAssistantMessage: "", canContinue: false })).toEqual({ stopHookActive: false, stop: undefined });
    expect(ofType("hook_finished")[0]).toMatchObject({ decision: "block", message: "not yet" });
    await hooks.settleSubagents({ deadlineMs: 1_000 });
    expect(ofType("hook_finished")).toHaveLength(1);
  });
});

describe("Claude Code settings, imported", () => {
  it("a project's .claude/settings.json hook runs unchanged: the documented block-rm example", async () => {
    // The example from Claude Code's hooks reference, verbatim: exec form, ${CLAUDE_PROJECT_DIR}, jq.
    fs.mkdirSync(ws.file(".claude/hooks"), { recursive: true });
    fs.writeFileSync(
      ws.file(".claude/hooks/block-rm.sh"),
      [
        "#!/bin/bash",
        "# .claude/hooks/block-rm.sh",
        "COMMAND=$(jq -r '.tool_input.command')",
        "",
        "if echo \"$COMMAND\" | grep -q 'rm -rf'; then",
        "  jq -n '{",
        "    hookSpecificOutput: {",
        '      hookEventName: "PreToolUse",',
        '      permissionDecision: "deny",',
        '      permissionDecisionReason: "Destructive command blocked by hook"',
        "    }",
        "  }'",
        "else",
        "  exit 0  # no decision; normal permission flow applies",
        "fi",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    fs.writeFileSync(
      ws.file(".claude/settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", args: [] }] }],
          PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: 'jq -r .tool_input.file_path >> "$CLAUDE_PROJECT_DIR"/edited.log' }] }],
        },
      }),
    );
    const configFile = path.join(ws.home, "config.yaml");
    fs.writeFileSync(configFile, "hooks:\n  import_claude: true\n");
    const { config, path: found } = loadConfig({ workspace: ws.dir, home: ws.home, packageDir: ws.home, env: {}, configFile });
    const loaded = loadHooks({ config, configPath: found, workspace: ws.dir, home: ws.home, trustProject: true });
    expect(loaded.warnings).toEqual([]);
    const hooks = new Hooks({
      hooks: loaded.hooks,
      session: { sessionId: "S", transcriptPath: () => null, cwd: ws.dir, permissionMode: () => "default" },
      env: { PATH: process.env.PATH },
      emit: (e) => events.push(e),
    });
    made.push(hooks);

    const denied = await hooks.preToolUse(COORDINATOR, { id: "c1", name: "bash", args: { command: "rm -rf /tmp/build" } });
    expect(denied).toMatchObject({ decision: "deny", reason: "Destructive command blocked by hook" });
    const fine = await hooks.preToolUse(COORDINATOR, { id: "c2", name: "bash", args: { command: "npm test" } });
    expect(fine.decision).toBeUndefined();
    await hooks.postToolUse(COORDINATOR, { id: "c3", name: "write_file", args: { path: "src/new.ts", content: "" } }, { ok: true, content: "wrote" }, 3);
    expect(fs.readFileSync(ws.file("edited.log"), "utf8")).toBe(`${ws.file("src/new.ts")}\n`);
    expect(ofType("hook_started").map((e) => e.source)).toEqual([ws.file(".claude/settings.json"), ws.file(".claude/settings.json"), ws.file(".claude/settings.json")]);
  });
});
