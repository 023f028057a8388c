/**
 * bin/compile-cache.js: Node's compile cache (22.1+) is turned on in the user's own cache folder,
 * never the shared temp folder Node would pick, and a Node without it (20) is left alone.
 */
import nodeModule from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileCacheDir, enableCompileCache } from "../../bin/compile-cache.js";

describe("the bin's compile cache", () => {
  it("goes under $XDG_CACHE_HOME when it is an absolute path, else ~/.cache", () => {
    expect(compileCacheDir({ XDG_CACHE_HOME: "/var/cache/me" }, "/home/me")).toBe(path.join("/var/cache/me", "orca", "compile-cache"));
    expect(compileCacheDir({ XDG_CACHE_HOME: "relative/cache" }, "/home/me")).toBe(path.join("/home/me", ".cache", "orca", "compile-cache"));
    expect(compileCacheDir({}, "/home/me")).toBe(path.join("/home/me", ".cache", "orca", "compile-cache"));
  });

  it("is turned on in that folder where Node has one, and what Node answers is passed on", () => {
    const asked: (string | undefined)[] = [];
    const status = enableCompileCache({ enableCompileCache: (dir) => (asked.push(dir), { status: 1, directory: dir }) }, {}, "/home/me");
    expect(asked).toEqual([path.join("/home/me", ".cache", "orca", "compile-cache")]);
    expect(status).toEqual({ status: 1, directory: asked[0] });
  });

  it("does nothing where Node has none, and a folder Node cannot use costs only the cache", () => {
    // Node 20's node:module, as the bin passes it.
    expect(enableCompileCache({ ...nodeModule, enableCompileCache: undefined }, {}, "/home/me")).toBeUndefined();
    const refusing = {
      enableCompileCache: () => {
        throw new Error("EACCES");
      },
    };
    expect(enableCompileCache(refusing, {}, "/home/me")).toBeUndefined();
  });
});
