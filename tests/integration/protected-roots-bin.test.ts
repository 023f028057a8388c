/**
 * One list of protected paths for every writable root (issue 26): each protected path is written
 * through write_file and through sandboxed bash, in the workspace, an isolated agent's worktree,
 * a `permissions.additional_dirs` dir and a `sandbox.writable` dir — each a git repository — and
 * every one gets the same answer: not written. Through the real bin, real bwrap, headless, with
 * `permissions.allow: ["bash", "write_file"]` (an allow rule does not cover a protected path).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { agentOf, perAgent, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/** Missing ones (a stand-in keeps them from being made) and, for the home-directory files, present ones. */
const MISSING = [".git/config", ".git/hooks/pre-commit", ".orca/config.yaml", ".mcp.json", ".claude/settings.json", ".agents/skills/x/SKILL.md", ".vscode/tasks.json", ".idea/workspace.xml"];
const PRESENT = [".bashrc", ".gitconfig", ".gitmodules"];
const ALL = [...MISSING, ...PRESENT];
const ORIGINAL = "original\n";

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });

/** A git repository with the present files committed. */
function makeRepo(dir: string, extra: Record<string, string> = {}): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries({ ...Object.fromEntries(PRESENT.map((p) => [p, ORIGINAL])), ...extra })) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "start");
}

const WT_WRITER = "---\nname: wt-writer\ndescription: Writes in its own worktree.\ntools: [write_file, bash]\nisolation: worktree\n---\nYou write.\n";

/** write_file then bash, for each protected path under `base` (a path prefix the agent uses). */
function attempts(base: string): ScriptedReply[] {
  return ALL.flatMap((rel) => {
    const p = base ? `${base}/${rel}` : rel;
    return [
      { toolCalls: [{ name: "write_file", args: { path: p, content: "pwned\n" } }] },
      { toolCalls: [{ name: "bash", args: { command: `mkdir -p "$(dirname '${p}')" 2>/dev/null; echo pwned > '${p}' && echo WROTE-IT` } }] },
    ];
  });
}

type Kind = "workspace" | "worktree" | "additional_dirs" | "sandbox.writable";

const contentOf = (file: string): string | null => (fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? fs.readFileSync(file, "utf8") : null);

async function attack(kind: Kind): Promise<{ results: string[]; root: string; before: Array<string | null> }> {
  const ws = workspace();
  const extraDir = path.join(ws.home, "extra");
  const config =
    kind === "additional_dirs"
      ? `permissions:\n  allow: ["bash", "write_file"]\n  additional_dirs: ["${extraDir}"]\n`
      : kind === "sandbox.writable"
        ? `permissions:\n  allow: ["bash", "write_file"]\nsandbox:\n  writable: ["${extraDir}"]\n`
        : 'permissions:\n  allow: ["bash", "write_file"]\n';
  const configFile = path.join(ws.home, "config.yaml");
  fs.writeFileSync(configFile, config);
  makeRepo(ws.dir, { ".orca/agents/wt-writer.md": WT_WRITER });
  // .orca exists in the workspace (its agent): its config.yaml is still missing.
  if (kind === "additional_dirs" || kind === "sandbox.writable") makeRepo(extraDir);
  const root = kind === "workspace" || kind === "worktree" ? ws.dir : extraDir;
  const base = root === ws.dir ? "" : extraDir;
  const script = attempts(base);
  const before = ALL.map((rel) => contentOf(path.join(root, rel)));
  const writer = kind === "worktree" ? "wt-writer-1" : "coordinator";
  const server = await scriptedServer(
    perAgent(
      kind === "worktree"
        ? { coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "wt-writer", task: "write" } }] }, { text: "done" }], "wt-writer-1": [...script, { text: "done" }] }
        : { coordinator: [...script, { text: "done" }] },
    ),
  );
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", configFile, "--output-format", "stream-json"], { ws, timeoutMs: 120_000 });
  expect(run.code, run.stderr).toBe(0);
  const requests = server.requests.filter((r) => agentOf(r) === writer);
  const results = requests.slice(1, script.length + 1).map((r) => {
    const tools = r.body.messages.filter((m) => m.role === "tool");
    return tools[tools.length - 1]?.content ?? "";
  });
  return { results, root, before };
}

describe("every protected path, every writable root, the file tools and the sandbox alike", () => {
  it.each<Kind>(["workspace", "worktree", "additional_dirs", "sandbox.writable"])("%s", async (kind) => {
    const { results, root, before } = await attack(kind);
    expect(results).toHaveLength(ALL.length * 2);
    const answers = ALL.map((rel, i) => {
      const [viaTool, viaBash] = [results[2 * i]!, results[2 * i + 1]!];
      const toolWrote = !/denied|outside the workspace/.test(viaTool);
      const bashWrote = viaBash.includes("WROTE-IT");
      const changed = contentOf(path.join(root, rel)) !== before[i];
      return { rel, toolWrote, bashWrote, changed };
    });
    expect(answers).toEqual(ALL.map((rel) => ({ rel, toolWrote: false, bashWrote: false, changed: false })));
  });
});
