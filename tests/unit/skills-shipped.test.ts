import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSkills } from "../../src/skills/loader.js";

/** The real shipped skills, from the repository's own skills/ folder. */
const PACKAGE_DIR = path.resolve(".");
const FIXTURES = path.resolve("tests/fixtures/skills");
const report = discoverSkills({ workspace: "/nonexistent-ws", home: "/nonexistent-home", packageDir: PACKAGE_DIR });
const skill = (name: string) => {
  const found = report.skills.find((s) => s.name === name);
  if (!found) throw new Error(`shipped skill ${name} did not load`);
  return found;
};

function runScript(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [file, ...args], { cwd: opts.cwd, env: opts.env ?? process.env, input: opts.input, encoding: "utf8", timeout: 60_000 });
}

describe("shipped skills", () => {
  it("all load cleanly from the package's skills/ folder", () => {
    expect(report.skipped).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.skills.map((s) => s.name).sort()).toEqual(["code-review", "focused-tests", "log-timeline"]);
    for (const s of report.skills) {
      expect(s.source).toBe("package");
      expect(s.description.length).toBeGreaterThan(50);
      expect(s.description).toMatch(/Use (when|after)/);
    }
  });

  it("name in each SKILL.md only files that exist in the skill's folder", () => {
    for (const s of report.skills) {
      const mentioned = [...s.body.matchAll(/(?:scripts|references|assets)\/[\w.-]+/g)].map((m) => m[0]);
      expect(mentioned.length, s.name).toBeGreaterThan(0);
      for (const rel of mentioned) expect(fs.existsSync(path.join(s.dir, rel)), `${s.name}: ${rel}`).toBe(true);
    }
  });
});

describe("code-review/scripts/changed-files.mjs", () => {
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  const script = () => path.join(skill("code-review").dir, "scripts", "changed-files.mjs");
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "orca-code-review-"));
    env = {
      ...process.env,
      GIT_CEILING_DIRECTORIES: path.dirname(tmp),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    };
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("lists modified, staged, deleted and untracked files with line counts and a total", () => {
    const repo = path.join(tmp, "repo");
    fs.mkdirSync(path.join(repo, "src"), { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    fs.writeFileSync(path.join(repo, "src", "a.js"), "one\ntwo\nthree\n");
    fs.writeFileSync(path.join(repo, "gone.txt"), "bye\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "init");
    fs.writeFileSync(path.join(repo, "src", "a.js"), "one\n2\nthree\nfour\n");
    fs.rmSync(path.join(repo, "gone.txt"));
    fs.writeFileSync(path.join(repo, "staged.js"), "x\ny\n");
    git(repo, "add", "staged.js");
    fs.writeFileSync(path.join(repo, "new file.txt"), "a\nb\nc\n");

    const r = runScript(script(), [], { cwd: path.join(repo, "src"), env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Branch: main");
    expect(r.stdout).toContain("Comparing: working tree and index against HEAD, plus untracked files");
    expect(r.stdout).toContain("Changed files (4, paths relative to the repository root):");
    expect(r.stdout).toMatch(/^ {2}deleted +gone\.txt +\+0 -1$/m);
    expect(r.stdout).toMatch(/^ {2}untracked +new file\.txt +\+3 -0$/m);
    expect(r.stdout).toMatch(/^ {2}modified +src\/a\.js +\+2 -1$/m);
    expect(r.stdout).toMatch(/^ {2}added +staged\.js +\+2 -0$/m);
    expect(r.stdout).toContain("Total: 4 files, +7 -2");

    const staged = runScript(script(), ["--staged", repo], { cwd: tmp, env });
    expect(staged.stdout).toContain("Changed files (1,");
    expect(staged.stdout).toMatch(/added +staged\.js/);
  });

  it("compares a branch with its base", () => {
    const repo = path.join(tmp, "repo");
    fs.mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    fs.writeFileSync(path.join(repo, "base.txt"), "base\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "base");
    git(repo, "checkout", "-q", "-b", "feature");
    fs.writeFileSync(path.join(repo, "feature.txt"), "f1\nf2\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "feature");
    const r = runScript(script(), ["--base", "main"], { cwd: repo, env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Branch: feature");
    expect(r.stdout).toMatch(/Comparing: everything since main/);
    expect(r.stdout).toMatch(/added +feature\.txt +\+2 -0/);
    expect(r.stdout).not.toContain("base.txt");

    const bad = runScript(script(), ["--base", "no-such-ref"], { cwd: repo, env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^cannot compare with no-such-ref/);
  });

  it("works in a repository without commits", () => {
    const repo = path.join(tmp, "fresh");
    fs.mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    fs.writeFileSync(path.join(repo, "first.txt"), "1\n");
    const r = runScript(script(), [], { cwd: repo, env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("(no commits yet)");
    expect(r.stdout).toMatch(/untracked +first\.txt +\+1 -0/);
  });

  it("says cleanly when the folder is not a git repository or git is missing", () => {
    const r = runScript(script(), [], { cwd: tmp, env });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(`${fs.realpathSync(tmp)} is not inside a git repository: cannot list changed files. Review the files the user named instead.`);

    const noGit = runScript(script(), [], { cwd: tmp, env: { ...env, PATH: path.join(tmp, "empty-bin") } });
    expect(noGit.status).toBe(0);
    expect(noGit.stdout.trim()).toBe("git is not installed: cannot list changed files. Review the files the user named instead.");
  });
});

describe("focused-tests/scripts/find-tests.mjs", () => {
  const project = path.join(FIXTURES, "project");
  const script = () => path.join(skill("focused-tests").dir, "scripts", "find-tests.mjs");

  it("finds tests by name and by import, best first, and prints how to run them", () => {
    const r = runScript(script(), ["src/parser.js", "src/lexer.js", "src/util/index.js"], { cwd: project });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("(5 test files)");
    expect(r.stdout).toMatch(/src\/parser\.js\n {2}test\/parser\.test\.js +same name, imports it\n {2}test\/integration\.test\.js +imports it\n/);
    expect(r.stdout).toMatch(/src\/lexer\.js\n {2}test\/integration\.test\.js +imports it\n {2}test\/lexer-edge\.test\.js +name mentions lexer\n/);
    expect(r.stdout).toMatch(/src\/util\/index\.js\n {2}test\/util\.test\.js +same name, imports it\n/);
    expect(r.stdout).toContain(
      "Run them: npx vitest run test/parser.test.js test/integration.test.js test/lexer-edge.test.js test/util.test.js",
    );
  });

  it("matches Python tests and suggests where a missing test would go", () => {
    const r = runScript(script(), ["--root", project, path.join(project, "lib/helpers.py"), path.join(project, "src/orphan.js")], {
      cwd: os.tmpdir(),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/lib\/helpers\.py\n {2}tests\/test_helpers\.py +same name, imports helpers\n/);
    expect(r.stdout).toContain("src/orphan.js\n  no related tests found; following this project's layout, a new test would be test/orphan.test.js");
    expect(r.stdout).toContain("Run them: python -m pytest tests/test_helpers.py");
  });

  it("refuses to run without a file, with a usage line", () => {
    const r = runScript(script(), [], { cwd: project });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("usage: node scripts/find-tests.mjs");
  });
});

describe("log-timeline/scripts/timeline.mjs", () => {
  const logs = path.join(FIXTURES, "logs");
  const script = () => path.join(skill("log-timeline").dir, "scripts", "timeline.mjs");
  const run = (file: string, ...args: string[]) => runScript(script(), [...args, file], { cwd: logs });

  it("summarises an ISO 8601 log: span, counts, folded repeats, stack-trace exception, frequent messages", () => {
    const r = run("app-log.txt");
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out).toContain("app-log.txt: 15 lines, 11 with timestamps (ISO 8601), 2024-05-01 12:00:01 → 12:45:10 (45m 9s)");
    expect(out).toContain("Errors: 5 · Warnings: 2");
    expect(out).toMatch(/^ {2}12:03:04 {2}ERROR {2}Connection refused: db:5432 \(attempt 1\) \(×3 until 12:03:14\) {2}\[3\]$/m);
    expect(out).toMatch(/12:05:30 {2}ERROR {2}request failed: unhandled exception — ValueError: invalid literal/);
    expect(out).toMatch(/12:06:00 {2}WARN {3}disk usage at 91%/);
    expect(out).toMatch(/12:45:10 {2}ERROR {2}out of memory, shutting down/);
    expect(out).not.toContain("completed with 0 errors");
    expect(out).toMatch(/Most frequent:\n {5}3× {2}ERROR {2}Connection refused/);
    expect(out).toContain("First error: line 3 at 12:03:04");
    expect(out).toContain("Busiest minute: 12:03 (3 errors, 1 warning)");
  });

  it("reads syslog timestamps", () => {
    const r = run("syslog-log.txt");
    expect(r.stdout).toContain("6 with timestamps (syslog), May 01 09:14:02 → May 02 00:00:01");
    expect(r.stdout).toContain("Errors: 1 · Warnings: 2");
    expect(r.stdout).toMatch(/09:15:10 {2}WARN .*CPU temperature above threshold \(×2 until 09:15:11\)/);
    expect(r.stdout).toMatch(/09:21:33 {2}ERROR .*cannot open \/var\/backups\/db\.tar/);
  });

  it("reads [HH:MM:SS] timestamps and keeps only errors with --errors-only, from stdin", () => {
    const r = runScript(script(), ["--errors-only", "-"], { cwd: logs, input: fs.readFileSync(path.join(logs, "clock-log.txt"), "utf8") });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("stdin: 6 lines, 6 with timestamps (clock), 10:00:00 → 10:01:05 (1m 5s)");
    expect(r.stdout).toContain("Errors: 2\n");
    expect(r.stdout).toMatch(/10:01:02 {2}ERROR {2}src\/a\.ts\(3,5\): cannot find name 'foo' {2}\[4\]/);
    expect(r.stdout).not.toContain("deprecated option");
  });

  it("reads access-log status codes and JSON log lines", () => {
    const access = run("access-log.txt");
    expect(access.stdout).toContain("(Apache/nginx)");
    expect(access.stdout).toMatch(/12:00:01 {2}WARN .*" 404 /);
    expect(access.stdout).toMatch(/12:00:02 {2}ERROR .*" 502 /);
    const mixed = run("mixed-log.txt");
    expect(mixed.stdout).toContain("Errors: 2 · Warnings: 1");
    expect(mixed.stdout).toMatch(/10:00:01 {2}ERROR .*boom — java\.lang\.IllegalStateException: bad state/);
    expect(mixed.stdout).toMatch(/10:00:02 {2}WARN {3}slow {2}\[5\]/);
    expect(mixed.stdout).toMatch(/10:00:03 {2}ERROR {2}pino boom {2}\[6\]/);
    expect(mixed.stdout).not.toContain("retried after");
  });

  it("shortens a long timeline to its start and end", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `2024-05-01T10:${String(i).padStart(2, "0")}:00Z ERROR failure kind ${String.fromCharCode(97 + (i % 26))}${i}x`);
    const r = runScript(script(), ["--max", "10", "-"], { cwd: logs, input: lines.join("\n") });
    expect(r.stdout).toContain("… 20 more timeline lines …");
    expect(r.stdout).toMatch(/10:00:00 {2}ERROR/);
    expect(r.stdout).toMatch(/10:29:00 {2}ERROR/);
    expect(r.stdout).not.toMatch(/10:15:00 {2}ERROR/);
  });

  it("fails with a usage line for a missing file", () => {
    const r = run("no-such.log");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no such file: no-such.log");
  });
});
