import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LinkWatch, linksOnTheWay, restoreLink, type LinkRepair } from "../../src/tools/sandbox/protected-links.js";
import { Sandbox } from "../../src/tools/sandbox/index.js";
import { isInside, Workspace } from "../../src/tools/workspace.js";

/**
 * The links on the way to a protected path that a command could replace (a mount cannot pin one):
 * recorded before the first command, put back after each (protected-links.ts).
 */

let home: string;
beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-links-")));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const inHome = (p: string) => isInside(home, p);
const NOW = new Date("2026-12-02T13:40:00.123Z");
const ASIDE = ".orca-replaced-2026-12-02T13-40-00-123Z";

/** `~/.cache -> ~/real-cache` with orca's cache folder behind it. */
function linkedCache(target = path.join(home, "real-cache")): string {
  fs.mkdirSync(path.join(home, "real-cache", "orca", "compile-cache"), { recursive: true });
  fs.symlinkSync(target, path.join(home, ".cache"));
  return path.join(home, ".cache", "orca", "compile-cache");
}

describe("the links on the way to a protected path", () => {
  it("are those in a folder a command can write, each with what it holds as written", () => {
    const cache = linkedCache("real-cache");
    expect(linksOnTheWay(cache, inHome)).toEqual([{ path: path.join(home, ".cache"), target: "real-cache" }]);
    // The same link in a folder no command can write needs nothing.
    expect(linksOnTheWay(cache, (p) => isInside(path.join(home, "real-cache"), p))).toEqual([]);
    // None on the way: nothing to watch.
    expect(linksOnTheWay(path.join(home, "real-cache", "orca", "compile-cache"), inHome)).toEqual([]);
  });

  it("follow a link to a link, and a link into a folder that holds one, to the end; a missing part ends the walk", () => {
    fs.mkdirSync(path.join(home, "dotfiles", "config", "orca"), { recursive: true });
    fs.symlinkSync("dotfiles/config", path.join(home, "config-link"));
    fs.symlinkSync(path.join(home, "config-link"), path.join(home, ".config"));
    fs.symlinkSync("../dotfiles/config/orca", path.join(home, "dotfiles", "orca-link"));
    fs.mkdirSync(path.join(home, "dotfiles", "config", "more"));
    fs.symlinkSync("../../orca-link", path.join(home, "dotfiles", "config", "more", "orca"));
    expect(linksOnTheWay(path.join(home, ".config", "more", "orca", "config.yaml"), inHome)).toEqual([
      { path: path.join(home, ".config"), target: path.join(home, "config-link") },
      { path: path.join(home, "config-link"), target: "dotfiles/config" },
      { path: path.join(home, "dotfiles", "config", "more", "orca"), target: "../../orca-link" },
      { path: path.join(home, "dotfiles", "orca-link"), target: "../dotfiles/config/orca" },
    ]);
    expect(linksOnTheWay(path.join(home, "nothing", "here"), inHome)).toEqual([]);
  });

  it("end at a loop of links", () => {
    fs.symlinkSync("b", path.join(home, "a"));
    fs.symlinkSync("a", path.join(home, "b"));
    expect(linksOnTheWay(path.join(home, "a", "x"), inHome).length).toBeLessThanOrEqual(41);
  });
});

describe("putting a link back", () => {
  it("leaves the user's link alone, also one made again with the same target", () => {
    linkedCache();
    const link = { path: path.join(home, ".cache"), target: path.join(home, "real-cache") };
    expect(restoreLink(link, NOW)).toBeNull();
    fs.rmSync(link.path);
    fs.symlinkSync(link.target, link.path);
    expect(restoreLink(link, NOW)).toBeNull();
  });

  it("moves a folder put in its place aside, whole, and makes the link again", () => {
    linkedCache();
    const link = { path: path.join(home, ".cache"), target: path.join(home, "real-cache") };
    fs.rmSync(link.path);
    fs.mkdirSync(path.join(link.path, "orca", "compile-cache"), { recursive: true });
    fs.writeFileSync(path.join(link.path, "orca", "compile-cache", "planted"), "x");
    expect(restoreLink(link, NOW)).toEqual({ link: link.path, target: link.target, movedTo: link.path + ASIDE });
    expect(fs.readlinkSync(link.path)).toBe(link.target);
    expect(fs.readdirSync(path.join(link.path + ASIDE, "orca", "compile-cache"))).toEqual(["planted"]);
    expect(fs.readdirSync(path.join(home, "real-cache", "orca", "compile-cache"))).toEqual([]);
  });

  it("replaces another link, or a file, and makes a removed one again; a name taken gets a counter", () => {
    const link = { path: path.join(home, ".cache"), target: "real-cache" };
    linkedCache("real-cache");
    fs.rmSync(link.path);
    fs.symlinkSync("evil", link.path);
    expect(restoreLink(link, NOW)?.movedTo).toBe(link.path + ASIDE);
    expect(fs.readlinkSync(link.path + ASIDE)).toBe("evil");
    fs.rmSync(link.path);
    fs.writeFileSync(link.path, "x");
    expect(restoreLink(link, NOW)?.movedTo).toBe(`${link.path}${ASIDE}-1`);
    fs.rmSync(link.path);
    expect(restoreLink(link, NOW)).toEqual({ link: link.path, target: "real-cache", movedTo: "" });
    expect(fs.readlinkSync(link.path)).toBe("real-cache");
  });

  it("says why when it cannot", () => {
    const link = { path: path.join(home, "gone", ".cache"), target: "real-cache" };
    expect(restoreLink(link, NOW)).toMatchObject({ link: link.path, movedTo: "", failed: expect.stringContaining("ENOENT") });
  });
});

describe("a session's watch", () => {
  it("keeps what each link was first, reports each check's repairs, and a reporter that throws stops nothing", () => {
    const cache = linkedCache();
    const heard: LinkRepair[][] = [];
    const watch = new LinkWatch((repairs) => {
      heard.push(repairs);
      throw new Error("the log is closed");
    });
    watch.record([cache], inHome);
    expect(watch.restore(NOW)).toEqual([]);
    fs.rmSync(path.join(home, ".cache"));
    fs.symlinkSync(path.join(home, "elsewhere"), path.join(home, ".cache"));
    // Recorded again (a later root): the first record stands.
    watch.record([cache], inHome);
    expect(watch.restore(NOW)).toHaveLength(1);
    expect(heard).toEqual([[{ link: path.join(home, ".cache"), target: path.join(home, "real-cache"), movedTo: path.join(home, ".cache") + ASIDE }]]);
    expect(fs.readlinkSync(path.join(home, ".cache"))).toBe(path.join(home, "real-cache"));
  });
});

describe("the sandbox", () => {
  it("with the workspace at the home: records ~/.cache before the first command and puts it back once the command has ended, telling its listeners", async () => {
    const cache = linkedCache();
    const sandbox = await Sandbox.open({ enabled: "auto", workspace: new Workspace(home), readOnly: [cache], abandonedRemoved: true });
    if (!sandbox.available) return void console.warn(`skipped: ${sandbox.status.reason}`);
    const heard: LinkRepair[][] = [];
    sandbox.onLinkRestored((repairs) => heard.push(repairs));
    try {
      const wrapped = await sandbox.wrap("true", "workspace-write");
      // What a command would do, done here while its lease is held.
      fs.rmSync(path.join(home, ".cache"));
      fs.mkdirSync(path.join(home, ".cache", "orca", "compile-cache"), { recursive: true });
      wrapped.lease.exited();
      await vi.waitFor(() => expect(heard).toHaveLength(1));
      expect(heard[0]).toMatchObject([{ link: path.join(home, ".cache"), target: path.join(home, "real-cache") }]);
      expect(fs.readlinkSync(path.join(home, ".cache"))).toBe(path.join(home, "real-cache"));
      await wrapped.nestedRepos;
      // A background shell's work found at close.
      fs.rmSync(path.join(home, ".cache"));
      fs.mkdirSync(path.join(home, ".cache"));
    } finally {
      await sandbox.close();
    }
    expect(heard).toHaveLength(2);
    expect(fs.readlinkSync(path.join(home, ".cache"))).toBe(path.join(home, "real-cache"));
  });
});
