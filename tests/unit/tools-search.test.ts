import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { AnyTool, ToolContext, ToolResult } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";

let tmp: string;
let ws: Workspace;
let tools: Map<string, AnyTool>;

function run(name: string, args: unknown): Promise<ToolResult> {
  const tool = tools.get(name)!;
  const ctx: ToolContext = { signal: new AbortController().signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {} };
  return tool.execute(tool.params.parse(args), ctx);
}

function write(rel: string, content: string | Buffer, mtimeSeconds?: number): void {
  const abs = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  if (mtimeSeconds !== undefined) fs.utimesSync(abs, mtimeSeconds, mtimeSeconds);
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-search-")));
  ws = new Workspace(tmp);
  tools = new Map(
    builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, tokens: bpeTokenCounter(), readOnlyCommands: [] }).map((t) => [
      t.name,
      t,
    ]),
  );
  write("src/old.ts", "export function load() {}\n", 1_000_000);
  write("src/new.ts", "// TODO: load faster\nexport const x = load();\n", 2_000_000);
  write("src/deep/mid.ts", "const LOAD = 1;\n", 1_500_000);
  write("README.md", "# Load things\n", 1_200_000);
  write("node_modules/pkg/index.ts", "export function load() {}\n");
  write(".git/config", "load\n");
  write("img.bin", Buffer.concat([Buffer.from("load"), Buffer.from([0, 1, 2])]));
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("glob", () => {
  it("returns workspace-relative paths, newest first, skipping node_modules and .git", async () => {
    const r = await run("glob", { pattern: "**/*.ts" });
    expect(r.ok).toBe(true);
    expect(r.content).toBe("src/new.ts\nsrc/deep/mid.ts\nsrc/old.ts");
  });

  it("searches under path and still prints paths from the workspace root", async () => {
    const r = await run("glob", { pattern: "*.ts", path: "src" });
    expect(r.content).toBe("src/new.ts\nsrc/old.ts");
  });

  it("includes node_modules when the pattern names it", async () => {
    const r = await run("glob", { pattern: "node_modules/**/*.ts" });
    expect(r.content).toBe("node_modules/pkg/index.ts");
  });

  it("says when nothing matches and refuses patterns that climb out", async () => {
    expect((await run("glob", { pattern: "**/*.rs" })).content).toBe("No files match **/*.rs in .");
    const up = await run("glob", { pattern: "../**/*" });
    expect(up.ok).toBe(false);
    expect(up.error).toMatch(/^glob: pattern \.\.\/\*\*\/\* climbs out/);
    const abs = await run("glob", { pattern: "/etc/*" });
    expect(abs.error).toMatch(/^glob: pattern \/etc\/\* is absolute/);
  });

  it("caps the result list and says how many matched", async () => {
    for (let i = 0; i < 230; i++) write(`many/f${i}.txt`, "");
    const r = await run("glob", { pattern: "many/*.txt" });
    const lines = r.content.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[200]).toMatch(/230 files match; showing the 200 most recently modified/);
  });
});

describe("grep", () => {
  it("prints path:line:text for matches, skipping binaries, node_modules and .git", async () => {
    const r = await run("grep", { pattern: "load" });
    expect(r.ok).toBe(true);
    expect(r.content).toBe(
      "3 matches in 2 files\nsrc/new.ts:1:// TODO: load faster\nsrc/new.ts:2:export const x = load();\nsrc/old.ts:1:export function load() {}",
    );
  });

  it("matches case-insensitively, within a glob and a path", async () => {
    const all = await run("grep", { pattern: "load", ignore_case: true, glob: "**/*.md" });
    expect(all.content).toBe("1 match in 1 file\nREADME.md:1:# Load things");
    const deep = await run("grep", { pattern: "^const", ignore_case: true, path: "src/deep" });
    expect(deep.content).toBe("1 match in 1 file\nsrc/deep/mid.ts:1:const LOAD = 1;");
    const file = await run("grep", { pattern: "TODO", path: "src/new.ts" });
    expect(file.content).toBe("1 match in 1 file\nsrc/new.ts:1:// TODO: load faster");
  });

  it("stops at max_results and says so", async () => {
    write("many.txt", Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const r = await run("grep", { pattern: "hit", max_results: 5 });
    const lines = r.content.split("\n");
    expect(lines[0]).toBe("5 matches in 1 file (stopped early)");
    expect(lines.slice(1, 6)).toEqual(["many.txt:1:hit 0", "many.txt:2:hit 1", "many.txt:3:hit 2", "many.txt:4:hit 3", "many.txt:5:hit 4"]);
    expect(lines[6]).toMatch(/stopped at 5 matches/);
  });

  it("reports no matches and rejects an invalid regular expression", async () => {
    expect((await run("grep", { pattern: "zzz" })).content).toBe("No matches for /zzz/ in .");
    const bad = await run("grep", { pattern: "(unclosed" });
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/^grep: invalid regular expression \(RE2 syntax/);
  });

  it("shortens very long matching lines around the match", async () => {
    write("min.js", `${"x".repeat(5000)}NEEDLE${"y".repeat(5000)}`);
    const r = await run("grep", { pattern: "NEEDLE" });
    const line = r.content.split("\n")[1];
    expect(line).toContain("NEEDLE");
    expect(line.length).toBeLessThan(400);
  });
});

describe("grep and catastrophic patterns", () => {
  it("answers a pathological regex at once instead of freezing the process", async () => {
    const { builtinTools, ShellManager } = await import("../../src/tools/builtin/index.js");
    const { Workspace } = await import("../../src/tools/workspace.js");
    const { tempWorkspace } = await import("../fixtures/harness.js");
    const w = tempWorkspace({ "a.txt": `${"a".repeat(60)}b\n` });
    try {
      const grep = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 1000, maxOutputTokens: 1000, tokens: bpeTokenCounter(), readOnlyCommands: [] }).find((t) => t.name === "grep")!;
      let timerRan = false;
      setTimeout(() => (timerRan = true), 0);
      const result = await grep.execute(
        { pattern: "^(a+)+$" },
        { signal: new AbortController().signal, workspace: new Workspace(w.dir), agentId: "t", callId: "c", emit: () => {} },
      );
      // With a backtracking engine this pattern on 60 characters takes longer than the universe.
      expect(result.content).toMatch(/No matches/);
      await new Promise((r) => setTimeout(r, 1));
      expect(timerRan).toBe(true);
    } finally {
      w.cleanup();
    }
  });
});
