/**
 * `npm run bench -- nested-repos`: what the look for git repositories a command made
 * (tools/sandbox/nested-repos.ts) adds to a sandboxed command. In turns, in a git repository of
 * 20 and of 5,000 folders: `true` in the workspace-write sandbox waited for as before the look
 * (its process group gone), the same waited for until its sandbox's look is done (as the bash tool
 * now does), and the look alone. The first command of a session reads the whole tree once.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommandLauncher } from "../src/tools/builtin/launch.js";
import { whenFinished } from "../src/tools/builtin/process-group.js";
import { Sandbox } from "../src/tools/sandbox/index.js";
import { Workspace } from "../src/tools/workspace.js";
import { spread, type Spread } from "./stats.js";

const TURNS = 20;

interface TreeResult {
  folders: number;
  first_ms: number;
  without: Spread;
  with: Spread;
  look: Spread;
}

function tree(folders: number): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-nested-")));
  execFileSync("git", ["init", "-q"], { cwd: root });
  for (let made = 0; made < folders; made++) fs.mkdirSync(path.join(root, "node_modules", `p${Math.floor(made / 10)}`, `d${made % 10}`), { recursive: true });
  return root;
}

async function once(launcher: CommandLauncher, root: string, look: boolean): Promise<number> {
  const started = performance.now();
  const launched = await launcher.launch("true", root, "workspace-write");
  await whenFinished(launched.child, undefined, launched.emptied);
  if (look) await launched.nestedRepos;
  return performance.now() - started;
}

async function measure(folders: number): Promise<TreeResult> {
  const root = tree(folders);
  const sandbox = await Sandbox.open({ enabled: true, workspace: new Workspace(root) });
  try {
    if (!sandbox.available) throw new Error(`no sandbox: ${sandbox.status.reason ?? "unknown"}`);
    const launcher = new CommandLauncher(sandbox);
    const first = await once(launcher, root, true);
    const without: number[] = [];
    const withLook: number[] = [];
    const look: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      without.push(await once(launcher, root, false));
      withLook.push(await once(launcher, root, true));
      const started = performance.now();
      await sandbox.checkNestedRepos(root);
      look.push(performance.now() - started);
    }
    return { folders, first_ms: Math.round(first * 10) / 10, without: spread(without), with: spread(withLook), look: spread(look) };
  } finally {
    await sandbox.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  // The lease's polls are unref'd (they must not keep orca alive): this keeps the bench alive.
  const alive = setInterval(() => {}, 1000);
  const results: TreeResult[] = [];
  for (const folders of [20, 5000]) results.push(await measure(folders));
  clearInterval(alive);
  if (json) return void console.log(JSON.stringify({ turns: TURNS, results }));
  const show = (s: Spread) => `${s.min} / ${s.median} / ${s.max}`;
  console.log(`ms, min / median / max of ${TURNS} turns`);
  for (const r of results) {
    console.log(`${r.folders} folders: without the look ${show(r.without)}; with it ${show(r.with)}; the look alone ${show(r.look)}; the first command ${r.first_ms}`);
  }
}
