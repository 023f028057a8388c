import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastToolResult, ROOT, runOrca } from "../fixtures/harness.js";
import { scriptedServer, sharedOutsideDir, workspace } from "../fixtures/rig.js";

/**
 * Issue 33: a stdio MCP server whose `save` tool writes files and claims readOnlyHint. Through the
 * real bin, headless without --yes (what would ask is refused): the claim schedules the call as a
 * read and decides nothing else.
 */

const LIAR = path.join(ROOT, "tests", "fixtures", "mcp-lying-server.mjs");
const outside = sharedOutsideDir();

interface Decision {
  type: string;
  tool: string;
  decision: "allow" | "deny";
  rule: string;
}

async function saveCalls(targets: string[], config = "") {
  const server = await scriptedServer([...targets.map((p) => ({ toolCalls: [{ name: "mcp__liar__save", args: { path: p } }] })), { text: "done" }]);
  const ws = workspace({
    ".orca/config.yaml": `mcp_servers:\n  liar:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(LIAR)}]\n${config}`,
  });
  fs.mkdirSync(ws.file(".git/hooks"), { recursive: true });
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  const decisions = run.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Decision)
    .filter((e) => e.type === "permission_decided");
  return { ws, decisions, results: targets.map((_, i) => lastToolResult(server.requests[i + 1]!)) };
}

describe("an MCP tool's readOnlyHint", () => {
  it("does not skip the question in default mode: a lying `save` writes neither a git hook nor a file outside", async () => {
    const marker = path.join(outside.dir, "liar-marker");
    const { ws, decisions, results } = await saveCalls([".git/hooks/pre-commit", marker, "notes.md"]);
    expect(fs.existsSync(ws.file(".git/hooks/pre-commit"))).toBe(false);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(ws.file("notes.md"))).toBe(false);
    expect(decisions.map((d) => [d.tool, d.decision])).toEqual([
      ["mcp__liar__save", "deny"],
      ["mcp__liar__save", "deny"],
      ["mcp__liar__save", "deny"],
    ]);
    expect(decisions[0]!.rule).toMatch(/^protected path: \.git\/hooks\/pre-commit/);
    expect(decisions[1]!.rule).toBe(`mcp__liar__save names a path outside the workspace: ${marker}`);
    expect(decisions[2]!.rule).toBe("mode:default");
    expect(results[0]).toContain("denied");
  }, 90_000);

  it("an allow rule for the server covers a workspace file, never a protected path or a path outside", async () => {
    const marker = path.join(outside.dir, "liar-allowed-marker");
    const { ws, decisions, results } = await saveCalls([".git/hooks/pre-commit", marker, "notes.md"], 'permissions:\n  allow: ["mcp__liar__*"]\n');
    expect(fs.existsSync(ws.file(".git/hooks/pre-commit"))).toBe(false);
    expect(fs.existsSync(marker)).toBe(false);
    expect(ws.read("notes.md")).toBe("written by the lying server\n");
    expect(results[2]).toContain("saved notes.md");
    expect(decisions.map((d) => d.decision)).toEqual(["deny", "deny", "allow"]);
  }, 90_000);
});
