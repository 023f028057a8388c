import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addWritableRoots, gitBinary } from "../../src/util/git-binary.js";
import { containedEnvironment } from "../../src/util/git-env.js";
import { outsideDir } from "../fixtures/sandbox.js";

/**
 * Security review of orca's own git: which git runs (never one planted where a command writes) and
 * the user's safe.directory kept, though their global config is off. Module state (the git found,
 * the safe directories read) is per test file, so this file sets HOME and PATH before either is read.
 */

let outside: ReturnType<typeof outsideDir>;
let home: string;
let repo: string;
const saved = { HOME: process.env.HOME, PATH: process.env.PATH };

beforeAll(() => {
  outside = outsideDir();
  home = path.join(outside.dir, "home");
  repo = path.join(outside.dir, "repo");
  fs.mkdirSync(home);
  fs.mkdirSync(repo);
  fs.writeFileSync(path.join(home, ".gitconfig"), `[safe]\n\tdirectory = /srv/other\n\tdirectory = ${repo}\n[core]\n\tpager = touch ${path.join(outside.dir, "pager-ran")}\n`);
  execFileSync("git", ["init", "-q", repo], { env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
  // A workspace with a planted git on PATH, before the real one, and a relative entry.
  const planted = path.join(outside.dir, "ws", "node_modules", ".bin");
  fs.mkdirSync(planted, { recursive: true });
  fs.writeFileSync(path.join(planted, "git"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  fs.writeFileSync(path.join(outside.dir, "git"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  addWritableRoots([path.join(outside.dir, "ws")]);
  process.env.HOME = home;
  process.env.PATH = [".", planted, saved.PATH].join(path.delimiter);
  process.chdir(outside.dir);
});
afterAll(() => {
  process.env.HOME = saved.HOME;
  process.env.PATH = saved.PATH;
  process.chdir(os.tmpdir());
  outside.cleanup();
});

describe("orca's git binary", () => {
  it("is absolute and never from a relative PATH entry or one inside a writable area; git's own PATH leaves them out too", () => {
    const binary = gitBinary();
    expect(binary).not.toBeNull();
    expect(path.isAbsolute(binary!)).toBe(true);
    expect(binary!.startsWith(outside.dir)).toBe(false);
    const gitPath = containedEnvironment().PATH!.split(path.delimiter);
    expect(gitPath).not.toContain(".");
    expect(gitPath.some((d) => d.startsWith(outside.dir))).toBe(false);
  });
});

describe("containedEnvironment", () => {
  it("passes the user's safe.directory values, and nothing else of their global config", () => {
    const env = containedEnvironment();
    const config = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]);
    expect(config.filter(([key]) => key === "safe.directory")).toEqual([
      ["safe.directory", "/srv/other"],
      ["safe.directory", repo],
    ]);
    expect(env.GIT_CONFIG_GLOBAL).toBe("/dev/null");
    expect(env.HOME).not.toBe(home);
    expect(config.find(([key]) => key === "core.pager")).toEqual(["core.pager", "cat"]);
  });

  it("a repository another uid owns works when the user's config names it safe (root only: chown)", () => {
    if (process.getuid?.() !== 0) return;
    execFileSync("chown", ["-R", "12345:12345", repo]);
    const withSafe = containedEnvironment();
    const out = execFileSync(gitBinary()!, ["rev-parse", "--show-toplevel"], { cwd: repo, env: withSafe, encoding: "utf8" });
    expect(out.trim()).toBe(fs.realpathSync(repo));
    // Without the user's values git refuses it: what every orca git call did before.
    const without = { ...withSafe };
    for (let i = 0; i < Number(without.GIT_CONFIG_COUNT); i++) if (without[`GIT_CONFIG_KEY_${i}`] === "safe.directory") without[`GIT_CONFIG_VALUE_${i}`] = "";
    expect(() => execFileSync(gitBinary()!, ["rev-parse", "--show-toplevel"], { cwd: repo, env: without, stdio: "pipe" })).toThrow(/dubious ownership/);
    expect(fs.existsSync(path.join(outside.dir, "pager-ran"))).toBe(false);
  });
});
