import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentSearchDirs, allowsTool, loadAgentDefinitions } from "../../src/agent/definition.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function agentFile(dir: string, file: string, text: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

describe("agent definitions", () => {
  it("ships coordinator, explorer, editor and tester with sensible whitelists", () => {
    const report = loadAgentDefinitions([path.join(ROOT, "agents")]);
    expect(report.failed).toEqual([]);
    expect([...report.definitions.keys()].sort()).toEqual(["coordinator", "editor", "explorer", "tester"]);
    const explorer = report.definitions.get("explorer")!;
    expect(explorer.tools.sort()).toEqual(["get_skill", "glob", "grep", "list_dir", "read_file"]);
    expect(allowsTool(report.definitions.get("coordinator")!, "delegate")).toBe(true);
    expect(allowsTool(report.definitions.get("coordinator")!, "mcp__github__create_issue")).toBe(true);
    expect(allowsTool(report.definitions.get("tester")!, "write_file")).toBe(false);
  });

  it("the workspace shadows the home and the package; shadowing and broken files are reported, not fatal", () => {
    ws = tempWorkspace();
    const dirs = agentSearchDirs({ workspace: ws.dir, home: ws.home, packageDir: ROOT });
    agentFile(dirs[0]!, "explorer.md", "---\nname: explorer\ndescription: mine\ntools: [read_file]\n---\nYou explore my way.\n");
    agentFile(dirs[1]!, "broken.md", "---\nname: [not a string\n---\nbody\n");
    agentFile(dirs[1]!, "nobody.md", "---\nname: nobody\ndescription: no prompt\n---\n");
    agentFile(dirs[1]!, "typo.md", "---\nname: typo\ndescription: d\ntolls: [bash]\n---\nprompt\n");
    const report = loadAgentDefinitions(dirs);
    expect(report.definitions.get("explorer")!.description).toBe("mine");
    expect(report.shadowed).toEqual([{ name: "explorer", file: path.join(ROOT, "agents", "explorer.md"), keptFile: path.join(dirs[0]!, "explorer.md") }]);
    const reasons = Object.fromEntries(report.failed.map((f) => [path.basename(f.file), f.reason]));
    expect(reasons["broken.md"]).toMatch(/invalid frontmatter/);
    expect(reasons["nobody.md"]).toMatch(/body .* is empty/);
    expect(reasons["typo.md"]).toMatch(/unknown key tolls/);
    expect(report.definitions.has("coordinator")).toBe(true);
  });

  it("never evaluates JavaScript front matter", () => {
    ws = tempWorkspace();
    const marker = path.join(ws.home, "pwned");
    agentFile(ws.dir, "evil.md", `---js\n{ name: (require("fs").writeFileSync(${JSON.stringify(marker)}, "x"), "evil"), description: "d" }\n---\nprompt\n`);
    const report = loadAgentDefinitions([ws.dir]);
    expect(report.definitions.has("evil")).toBe(false);
    expect(report.failed[0]?.reason).toMatch(/YAML front matter/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("tool globs in whitelists match MCP tool names", () => {
    const def = { tools: ["read_file", "mcp__fs__*"] };
    expect(allowsTool(def, "mcp__fs__read_text_file")).toBe(true);
    expect(allowsTool(def, "mcp__github__search")).toBe(false);
    expect(allowsTool(def, "write_file")).toBe(false);
  });

  it("a whitelist entry without glob syntax names one tool; every kind of glob syntax still matches", () => {
    expect(allowsTool({ tools: ["read_file"] }, "read_file")).toBe(true);
    expect(allowsTool({ tools: ["read_file"] }, "read_files")).toBe(false);
    expect(allowsTool({ tools: ["read.file"] }, "read_file")).toBe(false);
    for (const entry of ["mcp__fs__*", "mcp__fs__read_?ext_file", "mcp__fs__read_[st]ext_file", "mcp__fs__{read_text_file,x}", "mcp__fs__@(read_text_file)", "mcp__fs__+(read_text_file)", "mcp__fs__read\\_text_file"]) {
      expect(allowsTool({ tools: [entry] }, "mcp__fs__read_text_file"), entry).toBe(true);
    }
    expect(allowsTool({ tools: ["!(mcp__*)"] }, "read_file")).toBe(true);
  });
});
