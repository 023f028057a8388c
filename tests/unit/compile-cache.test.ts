/**
 * bin/compile-cache.js: Node's compile cache (22.1+) is turned on in the user's own cache folder,
 * never the shared temp folder Node would pick, and a Node without it (20) is left alone.
 */
import fs from "node:fs";
import nodeModule from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileCacheDir, enableCompileCache, pruneBuildFolders, readBuildId } from "../../bin/compile-cache.js";
import { compileCacheDir as sessionsCompileCacheDir } from "../../src/config/code-paths.js";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "orca-cc-"));
const home = path.join(temp, "home");
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

describe("the bin's compile cache", () => {
  it("goes under $XDG_RUNTIME_DIR (outside the home), else $XDG_CACHE_HOME, when absolute, else ~/.cache", () => {
    expect(compileCacheDir({ XDG_RUNTIME_DIR: "/run/user/1000", XDG_CACHE_HOME: "/var/cache/me" }, "/home/me")).toBe(path.join("/run/user/1000", "orca", "compile-cache"));
    expect(compileCacheDir({ XDG_RUNTIME_DIR: "run/user", XDG_CACHE_HOME: "/var/cache/me" }, "/home/me")).toBe(path.join("/var/cache/me", "orca", "compile-cache"));
    expect(compileCacheDir({ XDG_CACHE_HOME: "/var/cache/me" }, "/home/me")).toBe(path.join("/var/cache/me", "orca", "compile-cache"));
    expect(compileCacheDir({ XDG_CACHE_HOME: "relative/cache" }, "/home/me")).toBe(path.join("/home/me", ".cache", "orca", "compile-cache"));
    expect(compileCacheDir({}, "/home/me")).toBe(path.join("/home/me", ".cache", "orca", "compile-cache"));
    // The session keeps the same folder read-only to commands and refuses writable areas over it.
    for (const env of [{ XDG_RUNTIME_DIR: "/run/user/1000" }, { XDG_CACHE_HOME: "/var/cache/me" }, { XDG_CACHE_HOME: "relative" }, {}]) expect(sessionsCompileCacheDir(env, "/home/me")).toBe(compileCacheDir(env, "/home/me"));
  });

  it("passes over a runtime or cache folder in a temp dir (a sandbox with the host's network shares /tmp with commands)", () => {
    const inTemp = path.join(os.tmpdir(), "runtime-me");
    expect(compileCacheDir({ XDG_RUNTIME_DIR: inTemp, XDG_CACHE_HOME: "/var/cache/me" }, "/home/me")).toBe(path.join("/var/cache/me", "orca", "compile-cache"));
    expect(compileCacheDir({ XDG_RUNTIME_DIR: "/tmp/runtime-me", XDG_CACHE_HOME: "/tmp/cache" }, "/home/me")).toBe(path.join("/home/me", ".cache", "orca", "compile-cache"));
    for (const env of [{ XDG_RUNTIME_DIR: inTemp }, { XDG_RUNTIME_DIR: "/tmp", XDG_CACHE_HOME: "/var/cache/me" }]) expect(sessionsCompileCacheDir(env, "/home/me")).toBe(compileCacheDir(env, "/home/me"));
  });

  it("is turned on in that folder where Node has one, and what Node answers is passed on", () => {
    const asked: (string | undefined)[] = [];
    const status = enableCompileCache({ enableCompileCache: (dir) => (asked.push(dir), { status: 1, directory: dir }) }, {}, home);
    expect(asked).toEqual([path.join(home, ".cache", "orca", "compile-cache")]);
    expect(status).toEqual({ status: 1, directory: asked[0] });
  });

  it("does nothing where Node has none, and a folder Node cannot use costs only the cache", () => {
    // Node 20's node:module, as the bin passes it.
    expect(enableCompileCache({ ...nodeModule, enableCompileCache: undefined }, {}, home)).toBeUndefined();
    const refusing = {
      enableCompileCache: () => {
        throw new Error("EACCES");
      },
    };
    expect(enableCompileCache(refusing, {}, home)).toBeUndefined();
  });
});

describe("eager compiling with the cache (bin/compile-cache.js)", () => {
  const { ENABLED, ALREADY_ENABLED, FAILED, DISABLED } = { ENABLED: 1, ALREADY_ENABLED: 2, FAILED: 0, DISABLED: 3 };
  const constants = { compileCacheStatus: { ENABLED, ALREADY_ENABLED, FAILED, DISABLED } };
  /** The flags set, in order, with "enable" where the cache was turned on. */
  function flagsFor(answer: (() => unknown) | undefined): string[] {
    const steps: string[] = [];
    const v8 = { setFlagsFromString: (flag: string) => void steps.push(flag) };
    const mod = answer ? { enableCompileCache: () => (steps.push("enable"), answer()), constants } : { constants };
    enableCompileCache(mod, {}, home, v8);
    return steps;
  }

  it("turns on --no-lazy before the cache (its flags name the cache's folder) and keeps it when the cache is orca's own", () => {
    expect(flagsFor(() => ({ status: ENABLED }))).toEqual(["--no-lazy", "enable"]);
  });

  it("takes it back where there is no cache of orca's own: every run would compile the whole bundle", () => {
    for (const status of [FAILED, DISABLED, ALREADY_ENABLED]) expect(flagsFor(() => ({ status }))).toEqual(["--no-lazy", "enable", "--lazy"]);
    expect(
      flagsFor(() => {
        throw new Error("EACCES");
      }),
    ).toEqual(["--no-lazy", "enable", "--lazy"]);
  });

  it("stays lazy where the cache's folder cannot be written (Node answers \"enabled\" for one that exists): nothing compiled would be kept", () => {
    // A file where a parent folder should be: no run as any user (root included) can write there.
    const blocked = path.join(temp, "blocked-home");
    fs.mkdirSync(path.join(blocked, ".cache"), { recursive: true });
    fs.writeFileSync(path.join(blocked, ".cache", "orca"), "not a folder");
    const steps: string[] = [];
    const v8 = { setFlagsFromString: (flag: string) => void steps.push(flag) };
    enableCompileCache({ enableCompileCache: () => (steps.push("enable"), { status: ENABLED }), constants }, {}, blocked, v8);
    expect(steps).toEqual(["enable"]);
  });

  it("sets nothing where Node has no cache (20), or when the caller passes no v8", () => {
    expect(flagsFor(undefined)).toEqual([]);
    expect(() => enableCompileCache({ enableCompileCache: () => ({ status: ENABLED }), constants }, {}, home)).not.toThrow();
  });
});

describe("each build's entries in a folder of their own", () => {
  const DAY = 24 * 3600 * 1000;
  const root = path.join(temp, "builds", "compile-cache");
  const made = (name: string, ageMs: number, now: number): string => {
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, "v24-x64-abc"), { recursive: true });
    fs.writeFileSync(path.join(dir, "v24-x64-abc", "entry"), "code");
    fs.utimesSync(dir, new Date(now - ageMs), new Date(now - ageMs));
    return dir;
  };

  it("the cache is turned on in this build's folder, and the build is named by dist/bundle/build-id", () => {
    const asked: string[] = [];
    enableCompileCache({ enableCompileCache: (dir) => (asked.push(dir!), { status: 1 }), constants: { compileCacheStatus: { ENABLED: 1 } } }, {}, home, undefined, "0123456789abcdef");
    expect(asked).toEqual([path.join(compileCacheDir({}, home), "build-0123456789abcdef")]);
    const idFile = path.join(temp, "build-id");
    fs.writeFileSync(idFile, "0123456789abcdef");
    expect(readBuildId(idFile)).toBe("0123456789abcdef");
    fs.writeFileSync(idFile, "../../etc");
    expect(readBuildId(idFile)).toBeUndefined();
    expect(readBuildId(path.join(temp, "no-such-file"))).toBeUndefined();
  });

  it("a start removes other builds' folders unused for a week, keeps recent ones and whatever else is there, and marks its own as used", () => {
    const now = Date.now();
    const old = made("build-aaaaaaaaaaaaaaaa", 8 * DAY, now);
    const recent = made("build-bbbbbbbbbbbbbbbb", 6 * DAY, now);
    const mine = made("build-cccccccccccccccc", 3 * DAY, now);
    const other = made("v24-not-a-build", 30 * DAY, now);
    fs.writeFileSync(path.join(root, "orca-headless.v8"), "kept");
    pruneBuildFolders(root, "build-cccccccccccccccc", now);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(path.join(recent, "v24-x64-abc", "entry"))).toBe(true);
    expect(fs.existsSync(other)).toBe(true);
    expect(fs.existsSync(path.join(root, "orca-headless.v8"))).toBe(true);
    expect(fs.statSync(mine).mtimeMs).toBeGreaterThan(now - DAY);
  });

  it("a link named like a build folder is not followed: it is left, and what it points at stays", () => {
    const now = Date.now();
    const target = path.join(temp, "not-the-cache");
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, "precious"), "x");
    fs.mkdirSync(root, { recursive: true });
    const link = path.join(root, "build-dddddddddddddddd");
    fs.symlinkSync(target, link);
    fs.lutimesSync(link, new Date(now - 30 * DAY), new Date(now - 30 * DAY));
    pruneBuildFolders(root, "build-cccccccccccccccc", now);
    expect(fs.readFileSync(path.join(target, "precious"), "utf8")).toBe("x");
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
