import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_READ_ONLY_COMMANDS } from "../src/config/schema.js";
import type { EmitFn, ToolCall } from "../src/events/types.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../src/tools/approver.js";
import { builtinTools, ShellManager } from "../src/tools/builtin/index.js";
import { ToolExecutor } from "../src/tools/executor.js";
import { HeadlessApprover } from "../src/tools/headless-approver.js";
import { Permissions } from "../src/tools/permissions/engine.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { Scheduler } from "../src/tools/scheduler.js";
import { loadShellParser } from "../src/tools/shell/index.js";
import type { AnyTool } from "../src/tools/tool.js";
import { FileVersions } from "../src/tools/versions.js";
import { Workspace } from "../src/tools/workspace.js";
import { spread, type Spread } from "./stats.js";

/**
 * `npm run bench -- flow`: whether parallel agents wait on a person or a lock they do not need
 * (issue 27). Two explorers read while a tester runs a 2 s command, through the real executor,
 * scheduler, read versions and tools: the readers' total wait on the command, before (a command took
 * the workspace exclusively, as main did — selected here by giving bash that access) and after
 * (bash's own access: a command waits for writes and commands, never for reads). And a tester's
 * usual commands through the real permission engine with a scripted person
 * who always picks "always" as the dialog offers it: the dialogs shown with exact rules (before),
 * with the suggested rules (after), and with sandboxed_commands: auto.
 */

const COMMAND_MS = 2_000;
const READS_PER_EXPLORER = 5;
const RUNS = 3;

/** What a tester runs in a session, in order (each would ask in default mode). */
const TESTER_COMMANDS = [
  "npm test",
  "npm test src/a.test.ts",
  "npm test src/b.test.ts",
  "npm run build",
  "sleep 2 && echo tick 1",
  "sleep 2 && echo tick 2",
  "node scripts/check.mjs src",
  "node scripts/check.mjs test",
  "cargo test parser",
  "cargo test lexer",
  "make lint",
  "npm run build",
];

interface WaitRun {
  totalMs: number;
  maxMs: number;
}

async function readersWait(exclusiveCommands: boolean): Promise<WaitRun> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-flow-")));
  const shells = new ShellManager();
  try {
    for (const name of ["notes.md", "a.ts", "b.ts"]) fs.writeFileSync(path.join(base, name), `${name}\n`.repeat(50));
    const workspace = new Workspace(base);
    const queuedAt = new Map<string, number>();
    const waits: number[] = [];
    let commandStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (commandStarted = resolve));
    const emit: EmitFn = (e) => {
      if (e.type === "tool_queued") queuedAt.set(e.callId, performance.now());
      if (e.type !== "tool_started") return;
      if (e.name === "bash") commandStarted();
      else if (e.name === "read_file") waits.push(performance.now() - queuedAt.get(e.callId)!);
    };
    const registry = new ToolRegistry();
    for (const tool of builtinTools({ shells, bashTimeoutMs: 10_000, maxOutputTokens: 8_000, readOnlyCommands: DEFAULT_READ_ONLY_COMMANDS, tokens: bpeTokenCounter() })) {
      // Main's old rule: a command that may write takes the whole workspace.
      registry.add(exclusiveCommands && tool.name === "bash" ? ({ ...tool, access: (args, ws) => (tool.readOnly(args) ? tool.access(args, ws) : "exclusive") } as AnyTool) : tool);
    }
    const permissions = new Permissions({ mode: "bypass", allow: [], ask: [], deny: [], approver: new HeadlessApprover(false), emit, workspace });
    const executor = new ToolExecutor({ registry, scheduler: new Scheduler({ maxConcurrency: 8, emit }), permissions, workspace, emit, versions: new FileVersions(workspace) });
    const signal = new AbortController().signal;
    let n = 0;
    const call = (agentId: string, name: string, args: unknown) => {
      const toolCall: ToolCall = { id: `c${++n}`, name, raw: JSON.stringify(args), args };
      return executor.runAll([toolCall], { agentId, agentName: agentId, allows: () => true, signal });
    };
    const tester = call("tester-1", "bash", { command: `sleep ${COMMAND_MS / 1000}` });
    await started;
    const explorer = async (id: string) => {
      for (let i = 0; i < READS_PER_EXPLORER; i++) await call(id, "read_file", { path: ["notes.md", "a.ts", "b.ts"][i % 3] });
    };
    await Promise.all([explorer("explorer-1"), explorer("explorer-2"), tester]);
    return { totalMs: waits.reduce((a, b) => a + b, 0), maxMs: Math.max(...waits) };
  } finally {
    await shells.killAll();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/** A person who answers every dialog "always", keeping the rule offered (or the exact one: before). */
class ScriptedPerson implements Approver {
  dialogs = 0;
  constructor(private readonly exactOnly: boolean) {}
  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    this.dialogs++;
    const rule = this.exactOnly ? (request.always?.exact ?? request.always?.rule) : undefined;
    return rule ? { decision: "always", rule } : { decision: "always" };
  }
}

async function dialogs(variant: "exact" | "suggested" | "auto"): Promise<number> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-flow-")));
  try {
    const workspace = new Workspace(dir);
    const bash = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, readOnlyCommands: DEFAULT_READ_ONLY_COMMANDS, tokens: bpeTokenCounter() }).find((t) => t.name === "bash")!;
    const person = new ScriptedPerson(variant === "exact");
    const permissions = new Permissions({
      mode: "default",
      allow: [],
      ask: [],
      deny: [],
      approver: person,
      emit: () => undefined,
      workspace,
      sandbox: { available: true, status: { network: "off" } },
      ...(variant === "auto" ? { sandboxedCommands: "auto" as const } : {}),
    });
    const signal = new AbortController().signal;
    for (const [i, command] of TESTER_COMMANDS.entries()) {
      await permissions.check({ callId: `c${i}`, agentId: "tester-1", agentName: "tester", tool: bash, args: { command } }, signal);
    }
    return person.dialogs;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(opts: { json: boolean }): Promise<void> {
  await loadShellParser();
  const measure = async (exclusive: boolean): Promise<{ total: Spread; max: Spread }> => {
    const runs: WaitRun[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await readersWait(exclusive));
    return { total: spread(runs.map((r) => r.totalMs)), max: spread(runs.map((r) => r.maxMs)) };
  };
  const wait = { before: await measure(true), after: await measure(false) };
  const shown = { exact: await dialogs("exact"), suggested: await dialogs("suggested"), auto: await dialogs("auto") };
  if (opts.json) {
    console.log(JSON.stringify({ command_ms: COMMAND_MS, reads: 2 * READS_PER_EXPLORER, runs: RUNS, readers_wait_ms: wait, dialogs: { calls: TESTER_COMMANDS.length, ...shown } }));
    return;
  }
  const row = (s: Spread) => `${s.min} / ${s.median} / ${s.max}`;
  console.log(`Two explorers, ${READS_PER_EXPLORER} reads each, while a tester runs a ${COMMAND_MS / 1000} s command (${RUNS} runs; ms, min / median / max):\n`);
  console.log("| | readers' total wait | longest single wait |");
  console.log("|---|---|---|");
  console.log(`| before (a command takes the workspace) | ${row(wait.before.total)} | ${row(wait.before.max)} |`);
  console.log(`| after (reads run beside commands) | ${row(wait.after.total)} | ${row(wait.after.max)} |`);
  console.log(`\nDialogs for a tester's ${TESTER_COMMANDS.length} commands, a scripted person always answering "always":\n`);
  console.log("| before: exact rule | after: suggested rule | after: sandboxed_commands: auto |");
  console.log("|---|---|---|");
  console.log(`| ${shown.exact} | ${shown.suggested} | ${shown.auto} |`);
}
