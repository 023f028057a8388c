import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { addAllowRules, removeAllowRule } from "../../src/tools/permissions/rule-file.js";

const dirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "orca-rule-file-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("rule-file writer", () => {
  it("refuses a project config that is a symlink to a file outside, leaving that file alone", () => {
    const ws = tmp();
    const outside = path.join(tmp(), "victim.yaml");
    fs.writeFileSync(outside, "model:\n  name: x\n");
    fs.mkdirSync(path.join(ws, ".orca"));
    fs.symlinkSync(outside, path.join(ws, ".orca", "config.yaml"));
    expect(() => addAllowRules(path.join(ws, ".orca", "config.yaml"), ["bash(npm test *)"])).toThrow(/symlink/);
    expect(fs.readFileSync(outside, "utf8")).toBe("model:\n  name: x\n");
  });

  it("refuses a .orca folder that is a symlink", () => {
    const ws = tmp();
    const elsewhere = tmp();
    fs.symlinkSync(elsewhere, path.join(ws, ".orca"));
    expect(() => addAllowRules(path.join(ws, ".orca", "config.yaml"), ["bash(npm test *)"])).toThrow(/symlink/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it("a rule text carrying a newline or YAML cannot add another key", () => {
    const file = path.join(tmp(), "config.yaml");
    fs.writeFileSync(file, "permissions:\n  allow: []\n");
    expect(() => addAllowRules(file, ["bash(ls *)\npermissions:\n  mode: bypass"])).toThrow(/one line/);
    addAllowRules(file, ['bash(echo "x": y, mode: bypass *)']);
    addAllowRules(file, ["bash(ls #x: mode: bypass *)"]);
    const parsed = parse(fs.readFileSync(file, "utf8")) as { permissions: Record<string, unknown> };
    expect(Object.keys(parsed.permissions)).toEqual(["allow"]);
    expect(parsed.permissions.allow).toEqual(['bash(echo "x": y, mode: bypass *)', "bash(ls #x: mode: bypass *)"]);
  });

  it("keeps comments and other keys, creates a missing file, skips a rule already there, removes one", () => {
    const file = path.join(tmp(), "config.yaml");
    fs.writeFileSync(file, "# my settings\nmodel:\n  name: gpt-x # the model\npermissions:\n  mode: default\n  allow:\n    - read_file\n");
    expect(addAllowRules(file, ["bash(npm test *)", "read_file"])).toEqual(["bash(npm test *)"]);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("# the model");
    expect(parse(text)).toEqual({ model: { name: "gpt-x" }, permissions: { mode: "default", allow: ["read_file", "bash(npm test *)"] } });
    expect(removeAllowRule(file, "bash(npm test *)")).toBe(true);
    expect(removeAllowRule(file, "bash(npm test *)")).toBe(false);
    expect(parse(fs.readFileSync(file, "utf8")).permissions.allow).toEqual(["read_file"]);

    const fresh = path.join(tmp(), "new", "config.yaml");
    addAllowRules(fresh, ["bash(git log *)"]);
    expect(parse(fs.readFileSync(fresh, "utf8"))).toEqual({ permissions: { allow: ["bash(git log *)"] } });
  });
});
