import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Workspace, WorkspaceError } from "../../src/tools/workspace.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("workspace confinement", () => {
  it("resolves relative paths and accepts names that merely start with two dots", () => {
    ws = tempWorkspace({ "..env.example": "x", "src/a.ts": "" });
    const w = new Workspace(ws.dir);
    expect(w.resolve("..env.example")).toBe(path.join(ws.dir, "..env.example"));
    expect(w.resolve("src/../src/a.ts")).toBe(path.join(ws.dir, "src", "a.ts"));
    expect(w.relative(w.resolve("."))).toBe(".");
  });

  it("refuses .., absolute paths, and symlinks (also dangling ones) that land outside", () => {
    ws = tempWorkspace();
    const outside = path.dirname(ws.dir);
    fs.symlinkSync(outside, path.join(ws.dir, "up"));
    fs.symlinkSync(path.join(outside, "not-yet"), path.join(ws.dir, "dangling"));
    const w = new Workspace(ws.dir);
    for (const p of ["../x", "/etc/passwd", "up/x", "dangling", "dangling/deeper", "src/../../x"]) {
      expect(() => w.resolve(p), p).toThrow(WorkspaceError);
    }
  });

  it("additional_dirs widen it", () => {
    ws = tempWorkspace();
    const extra = path.join(ws.home, "shared");
    fs.mkdirSync(extra);
    const w = new Workspace(ws.dir, [extra]);
    expect(w.resolve(path.join(extra, "f.txt"))).toBe(path.join(extra, "f.txt"));
    expect(() => w.resolve(path.join(ws.home, "other"))).toThrow(WorkspaceError);
  });
});
