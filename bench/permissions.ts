/**
 * `npm run bench -- permissions`: what reading commands with the shell grammar costs the
 * permission check. `load_ms`: loading web-tree-sitter and the bash grammar, once per process.
 * `check_us`: one Permissions.check of a bash call whose text was never seen before (so nothing
 * is cached: parse, deny rules, the read-only hint, the path check), median over the commands
 * below; `cached_us`: the same calls again. Deny rules are configured so every call is matched.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_READ_ONLY_COMMANDS } from "../src/config/schema.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import { builtinTools, ShellManager } from "../src/tools/builtin/index.js";
import { HeadlessApprover } from "../src/tools/headless-approver.js";
import { Permissions } from "../src/tools/permissions/engine.js";
import { loadShellParser } from "../src/tools/shell/index.js";
import { Workspace } from "../src/tools/workspace.js";
import { median } from "./stats.js";

const COMMANDS = [
  "git status --short",
  "git diff HEAD~1 -- src/a.ts",
  "ls -la src",
  "rg -n 'TODO|FIXME' src | head -50",
  "npm test -- --run tests/unit/foo.test.ts",
  "find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l",
  "cd packages/api && npm run build 2>&1 | tail -20",
  "for f in src/*.ts; do echo \"$f\"; grep -c import \"$f\"; done",
  "sh -c 'echo one && echo two' > out.txt",
  "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"name\"])' < package.json",
];
const ROUNDS = 200;

export async function run(opts: { json: boolean }): Promise<void> {
  const started = performance.now();
  await loadShellParser();
  const loadMs = performance.now() - started;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-perm-"));
  try {
    const workspace = new Workspace(dir);
    const bash = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, readOnlyCommands: DEFAULT_READ_ONLY_COMMANDS, tokens: bpeTokenCounter() }).find((t) => t.name === "bash")!;
    const permissions = new Permissions({
      mode: "default",
      allow: ["bash(npm test *)", "bash(npm run build)"],
      ask: ["bash(git push *)"],
      deny: ["bash(rm *)", "bash(curl *)", "read_file(.env*)"],
      approver: new HeadlessApprover(true),
      emit: () => undefined,
      workspace,
      sandbox: { available: true },
    });
    const signal = new AbortController().signal;
    const check = (command: string, i: number) => permissions.check({ callId: `c${i}`, agentId: "a", agentName: "a", tool: bash, args: { command } }, signal);
    const cold: number[] = [];
    const warm: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, base] of COMMANDS.entries()) {
        // A comment makes each text new to the cache without changing what it runs.
        const command = `${base} # ${round}`;
        let t = performance.now();
        await check(command, i);
        cold.push((performance.now() - t) * 1000);
        t = performance.now();
        await check(command, i);
        warm.push((performance.now() - t) * 1000);
      }
    }
    const result = { load_ms: Number(loadMs.toFixed(1)), check_us: Math.round(median(cold)), cached_us: Math.round(median(warm)), commands: COMMANDS.length, rounds: ROUNDS };
    if (opts.json) console.log(JSON.stringify(result));
    else {
      console.log("| grammar load | check (new command) | check (cached) |");
      console.log("|---|---|---|");
      console.log(`| ${result.load_ms} ms | ${result.check_us} µs | ${result.cached_us} µs |`);
      console.log(`\nmedian over ${COMMANDS.length} commands × ${ROUNDS} rounds`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
