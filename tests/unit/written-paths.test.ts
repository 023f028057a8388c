/** writtenPaths: where a write call wrote, for the check of nested repositories right after it. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpTool } from "../../src/mcp/mcp-tool.js";
import { writeFileTool } from "../../src/tools/builtin/write-file.js";
import { ok, type AnyTool } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";
import { writtenPaths } from "../../src/tools/written-paths.js";

let root = "";
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
const workspace = () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-written-")));
  fs.mkdirSync(path.join(root, "real"));
  fs.symlinkSync("real", path.join(root, "link"));
  return new Workspace(root);
};
const mcp = createMcpTool({ server: "fs", definition: { name: "write", inputSchema: { type: "object" } }, call: async () => ok("") }) as AnyTool;

describe("writtenPaths", () => {
  it("a file tool: its path, through links as it writes", () => {
    const ws = workspace();
    expect(writtenPaths(writeFileTool() as AnyTool, { path: "link/.git/config", content: "" }, ws)).toEqual([path.join(root, "real", ".git", "config")]);
  });

  it("an MCP server's write: the paths its arguments name, else null (the walk)", () => {
    const ws = workspace();
    expect(writtenPaths(mcp, { path: "sub/.git/config", content: "" }, ws)).toEqual([path.join(root, "sub", ".git", "config")]);
    expect(writtenPaths(mcp, { content: "" }, ws)).toBeNull();
  });

  it("a tool that cannot say what it touches: null (the walk)", () => {
    const ws = workspace();
    const broken = { ...(writeFileTool() as AnyTool), access: () => { throw new Error("no"); } };
    expect(writtenPaths(broken, {}, ws)).toBeNull();
  });
});
