/**
 * bin/headless-bundle.js: on a Node without a compile cache (20), a `-p` run runs the headless
 * bundle and keeps V8's compiled code of it in orca's compile-cache folder. What is kept there runs
 * as the user, so it is taken only from a regular file of the user's that nobody else may write,
 * written under the same key; anything else is passed over (and replaced whole by the next run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { headlessCacheFile, loadHeadlessBundle } from "../../bin/headless-bundle.js";
import { compileCacheDir } from "../../bin/compile-cache.js";
import { ROOT } from "../fixtures/harness.js";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "orca-hb-"));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));
const NO_CACHE = {};
const HI = ["-p", "hi"];
let n = 0;
const freshHome = (): string => fs.mkdirSync(path.join(temp, `home${n++}`), { recursive: true }) as string;

/** A run's load and keep, as bin/orca.js does them (main is not run). */
function loadAndKeep(home: string, argv = HI, env: NodeJS.ProcessEnv = {}): boolean | undefined {
  const loaded = loadHeadlessBundle(argv, NO_CACHE, env, home);
  loaded?.keep();
  return loaded?.taken;
}

describe("the headless bundle's kept code", () => {
  it("is kept in the compile-cache folder (the sandbox keeps it read-only), private to the user, and taken by the next run", () => {
    const home = freshHome();
    const file = headlessCacheFile({}, home);
    expect(path.dirname(file)).toBe(compileCacheDir({}, home));
    expect(loadAndKeep(home)).toBe(false);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    // Kept under the hash of the bundle's content (its first line, written by the build), not only its size and time:
    // npm gives every file of a package the same time, and an upgrade's bundle could be as long as the last one.
    const hash = /^\/\/ orca-headless ([0-9a-f]{64})\n/.exec(fs.readFileSync(path.join(ROOT, "dist", "bundle", "headless.cjs"), "latin1").slice(0, 100))?.[1];
    expect(hash).toBeDefined();
    expect(fs.readFileSync(file, "latin1").split("\n")[0]).toContain(` ${hash} `);
    const written = fs.statSync(file);
    expect(loadAndKeep(home)).toBe(true);
    // Taken, so not written again.
    expect(fs.statSync(file).ino).toBe(written.ino);
  });

  it("is not taken from a file others may write, through a symlink, or under another key — and such a file is replaced whole", () => {
    const home = freshHome();
    loadAndKeep(home);
    const file = headlessCacheFile({}, home);
    const good = fs.readFileSync(file);

    fs.chmodSync(file, 0o622);
    expect(loadAndKeep(home)).toBe(false);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const elsewhere = path.join(temp, `elsewhere${n++}`);
    fs.writeFileSync(elsewhere, good, { mode: 0o600 });
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    expect(loadAndKeep(home)).toBe(false);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(elsewhere)).toEqual(good);

    const newline = good.indexOf(0x0a);
    fs.writeFileSync(file, Buffer.concat([Buffer.from("v0.0.0 another key\n"), good.subarray(newline + 1)]), { mode: 0o600 });
    expect(loadAndKeep(home)).toBe(false);
    expect(fs.readFileSync(file).subarray(0, newline)).toEqual(good.subarray(0, newline));
  });

  it("is only for a `-p` run on a Node without a compile cache, and not with NODE_DISABLE_COMPILE_CACHE=1", () => {
    const home = freshHome();
    expect(loadHeadlessBundle(HI, { enableCompileCache: () => undefined }, {}, home)).toBeUndefined();
    expect(loadHeadlessBundle(HI, NO_CACHE, { NODE_DISABLE_COMPILE_CACHE: "1" }, home)).toBeUndefined();
    // `-p` as another option's value, a subcommand, a line the parser refuses: the chunks' main says what it says there.
    for (const argv of [["--model", "-p"], ["sessions", "-p"], ["-p", "--demo"], ["-p", "hi", "--no-such-option"]]) expect(loadHeadlessBundle(argv, NO_CACHE, {}, home), argv.join(" ")).toBeUndefined();
    expect(fs.existsSync(headlessCacheFile({}, home))).toBe(false);
  });

  it("is not run where nothing is kept and nothing can be (a cache folder that cannot be made): the script alone is twice the chunks' text to parse", () => {
    const home = freshHome();
    // ~/.cache a file: no folder can be made under it, not even by root.
    fs.writeFileSync(path.join(home, ".cache"), "");
    expect(loadHeadlessBundle(HI, NO_CACHE, {}, home)).toBeUndefined();
  });
});
