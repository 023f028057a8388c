/**
 * `@path` in the dashboard is a read the person asks for, and must not show the model what an
 * agent's read_file would be refused: a deny rule, a path outside the workspace, a symlink out of
 * it (to a file or through a folder), a binary. The deny rules come from the real permission engine.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { Permissions } from "../../src/tools/permissions/engine.js";
import { Workspace } from "../../src/tools/workspace.js";
import { userInput } from "../../src/orchestrator/user-input.js";

const SECRET = "SECRET-MARKER-7f3a";
let root: string;
let outside: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-attach-"));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), "orca-attach-out-"));
  fs.writeFileSync(path.join(outside, "key.txt"), SECRET);
  fs.mkdirSync(path.join(root, "src"));
  fs.writeFileSync(path.join(root, "src/a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(root, ".env"), SECRET);
  fs.mkdirSync(path.join(root, "secrets"));
  fs.writeFileSync(path.join(root, "secrets/token"), SECRET);
  fs.writeFileSync(path.join(root, "bin.dat"), Buffer.from([1, 0, 2]));
  fs.symlinkSync(path.join(outside, "key.txt"), path.join(root, "link.txt"));
  fs.symlinkSync(outside, path.join(root, "outdir"));
  // A symlink inside the workspace to a denied file: the rule must hold through it too.
  fs.symlinkSync(path.join(root, ".env"), path.join(root, "innocent.txt"));
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function input() {
  const workspace = new Workspace(root);
  const permissions = new Permissions({ mode: "default", allow: [], ask: [], deny: ["read_file(.env)", "read_file(secrets/**)"], approver: new HeadlessApprover(false), emit: () => undefined, workspace, sandbox: { available: true } });
  return userInput({ workspace, readDenied: (rel) => permissions.readDenied(rel), mode: () => "default" });
}

describe("@path attachments", () => {
  it("attaches a workspace file", async () => {
    expect(await input().attach("src/a.ts")).toEqual({ ok: true, path: "src/a.ts", text: "export const a = 1;\n" });
  });

  for (const [name, given, why] of [
    ["a read_file deny rule", ".env", /deny rule read_file\(\.env\)/],
    ["a deny rule on a folder", "secrets/token", /deny rule read_file\(secrets\/\*\*\)/],
    ["an absolute path outside", "OUT/key.txt", /outside the workspace/],
    ["a climb out with ..", "../OUTNAME/key.txt", /outside the workspace/],
    ["a symlink to a file outside", "link.txt", /outside the workspace/],
    ["a symlinked folder leading outside", "outdir/key.txt", /outside the workspace/],
    ["a symlink to a denied file", "innocent.txt", /deny rule|symlink/],
    ["a binary file", "bin.dat", /binary/],
  ] as const) {
    it(`refuses ${name}, and nothing of the file comes back`, async () => {
      const p = given.replace("OUTNAME", path.basename(outside)).replace("OUT", outside);
      const got = await input().attach(p);
      expect(got.ok).toBe(false);
      expect(JSON.stringify(got)).not.toContain(SECRET);
      if (!got.ok) expect(got.error).toMatch(why);
    });
  }

  it("completes paths without offering denied files, symlinks or dot entries unasked", () => {
    const i = input();
    expect(i.mentions("")).toEqual(["bin.dat", "secrets/", "src/"]);
    expect(i.mentions("src/")).toEqual(["src/a.ts"]);
    expect(i.mentions("secrets/")).toEqual([]);
    expect(i.mentions(".")).toEqual([]);
    expect(i.mentions("outdir/")).toEqual([]);
  });

  it("never offers a name with a control character (an escape sequence for the terminal)", () => {
    const evil = "a\u001B]52;c;ZWNobyBoaQ==\u0007.md";
    fs.writeFileSync(path.join(root, evil), "x");
    try {
      expect(input().mentions("a")).toEqual([]);
    } finally {
      fs.rmSync(path.join(root, evil));
    }
  });
});
