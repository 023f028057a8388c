/**
 * Matchers behave as Claude Code's hooks reference documents them, and a tool matches under its
 * orca name or its Claude Code name. The payload fields a Claude Code script reads are there.
 */
import { describe, expect, it } from "vitest";
import { compileMatcher } from "../../src/hooks/matcher.js";
import { claudePermissionMode, claudeToolName, hookToolInput, orcaRule, orcaToolInput } from "../../src/hooks/names.js";
import { commonFields, toolFields, toolResponse, type HookSession } from "../../src/hooks/payload.js";

function matches(matcher: string | undefined, ...values: string[]): boolean {
  const compiled = compileMatcher(matcher);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.test(values);
}

describe("matcher", () => {
  it('"*", "" and no matcher match everything', () => {
    for (const m of ["*", "", undefined]) expect(matches(m, "anything")).toBe(true);
  });

  it("a plain name is an exact match, case-sensitive, never a substring", () => {
    expect(matches("Bash", "Bash")).toBe(true);
    expect(matches("Bash", "BashOutput")).toBe(false);
    expect(matches("Bash", "bash")).toBe(false);
    expect(matches("Edit", "NotebookEdit")).toBe(false);
  });

  it("a list splits on | or , with optional spaces around each name", () => {
    for (const m of ["Edit|Write", "Edit, Write", "Edit ,Write", " Edit | Write "]) {
      expect(matches(m, "Write")).toBe(true);
      expect(matches(m, "Edit")).toBe(true);
      expect(matches(m, "Read")).toBe(false);
    }
  });

  it("a hyphenated name is exact: code-reviewer does not fire for senior-code-reviewer", () => {
    expect(matches("code-reviewer", "code-reviewer")).toBe(true);
    expect(matches("code-reviewer", "senior-code-reviewer")).toBe(false);
  });

  it("anything else is an unanchored JavaScript regular expression", () => {
    expect(matches("Edit.*", "NotebookEdit")).toBe(true);
    expect(matches("^Edit$", "NotebookEdit")).toBe(false);
    expect(matches("^Notebook", "NotebookEdit")).toBe(true);
    expect(matches("mcp__memory__.*", "mcp__memory__create_entities")).toBe(true);
    expect(matches("mcp__memory__.*", "mcp__github__search")).toBe(false);
    expect(matches("mcp__.*__write.*", "mcp__fs__write_file")).toBe(true);
  });

  it("a bare server prefix is an exact string and matches no tool (Claude Code's documented trap)", () => {
    expect(matches("mcp__memory", "mcp__memory__create_entities")).toBe(false);
  });

  it("matches when any of the values matches: orca's tool name or Claude Code's", () => {
    expect(matches("Bash", "bash", "Bash")).toBe(true);
    expect(matches("bash", "bash", "Bash")).toBe(true);
    expect(matches("Edit|Write", "write_file", "Write")).toBe(true);
    expect(matches("read_file", "read_file", "Read")).toBe(true);
    expect(matches("Read", "grep", "Grep")).toBe(false);
  });

  it("an invalid regular expression is reported, not thrown", () => {
    const compiled = compileMatcher("Bash(");
    expect(compiled.ok).toBe(false);
    expect(!compiled.ok && compiled.error).toBe("invalid regular expression /Bash(/: Unterminated group");
  });
});

describe("names", () => {
  it("maps orca's tools to Claude Code's, and rules the other way", () => {
    expect(["read_file", "write_file", "edit_file", "bash", "grep", "glob"].map(claudeToolName)).toEqual(["Read", "Write", "Edit", "Bash", "Grep", "Glob"]);
    expect(claudeToolName("mcp__github__search")).toBe("mcp__github__search");
    expect(orcaRule("Bash(rm *)")).toBe("bash(rm *)");
    expect(orcaRule("Edit(*.ts)")).toBe("edit_file(*.ts)");
    expect(orcaRule("bash(git *)")).toBe("bash(git *)");
    expect(orcaRule("mcp__github__*")).toBe("mcp__github__*");
  });

  it("spells permission modes as Claude Code does", () => {
    expect(["default", "accept-edits", "plan", "bypass"].map(claudePermissionMode)).toEqual(["default", "acceptEdits", "plan", "bypassPermissions"]);
  });

  it("adds Claude Code's file_path (absolute) and timeout to tool_input, and folds a rewrite back", () => {
    expect(hookToolInput("write_file", { path: "src/a.ts", content: "x" }, "/ws")).toEqual({ path: "src/a.ts", content: "x", file_path: "/ws/src/a.ts" });
    expect(hookToolInput("bash", { command: "ls", timeout_ms: 5 }, "/ws")).toEqual({ command: "ls", timeout_ms: 5, timeout: 5 });
    // A script that echoes the input back with a new file_path moves the write.
    expect(orcaToolInput("write_file", { path: "src/a.ts", file_path: "/ws/src/b.ts", content: "y" }, { path: "src/a.ts", content: "x" }, "/ws")).toEqual({
      path: "/ws/src/b.ts",
      content: "y",
    });
    // One that only knows Claude Code's fields still works.
    expect(orcaToolInput("edit_file", { file_path: "/ws/a.ts", old_string: "a", new_string: "b" }, { path: "a.ts", old_string: "a", new_string: "c" }, "/ws")).toEqual({
      path: "/ws/a.ts",
      old_string: "a",
      new_string: "b",
    });
    // One that edits orca's own field and leaves the alias as it was keeps orca's edit.
    expect(orcaToolInput("read_file", { path: "b.ts", file_path: "/ws/a.ts" }, { path: "a.ts" }, "/ws")).toEqual({ path: "b.ts" });
    expect(orcaToolInput("bash", { command: "ls -la", timeout: 9 }, { command: "ls", timeout_ms: 5 }, "/ws")).toEqual({ command: "ls -la", timeout_ms: 9 });
  });
});

describe("payload", () => {
  const session: HookSession = { sessionId: "S", transcriptPath: () => "/data/sessions/S.jsonl", cwd: "/ws", permissionMode: () => "accept-edits" };

  it("has the common fields, and agent_id / agent_type only inside a sub-agent", () => {
    expect(commonFields(session, "Stop", { id: "coordinator", type: "coordinator" })).toEqual({
      session_id: "S",
      transcript_path: "/data/sessions/S.jsonl",
      cwd: "/ws",
      permission_mode: "acceptEdits",
      hook_event_name: "Stop",
    });
    expect(commonFields(session, "PreToolUse", { id: "editor-2", type: "editor", parentId: "coordinator" })).toMatchObject({ agent_id: "editor-2", agent_type: "editor" });
  });

  it("tool events carry orca's tool name, Claude Code's, the input and the call id", () => {
    const call = { id: "call_1", name: "edit_file", args: { path: "a.ts", old_string: "x", new_string: "y" } };
    expect(toolFields(session, call)).toEqual({
      tool_name: "edit_file",
      tool_name_cc: "Edit",
      tool_input: { path: "a.ts", old_string: "x", new_string: "y", file_path: "/ws/a.ts" },
      tool_use_id: "call_1",
    });
    expect(toolFields(session, call, false)).not.toHaveProperty("tool_use_id");
    expect(toolResponse(session, call, { ok: true, content: "edited a.ts" })).toEqual({ success: true, content: "edited a.ts", filePath: "/ws/a.ts" });
    expect(toolResponse(session, { id: "c", name: "bash", args: { command: "false" } }, { ok: true, content: "[exit code: 1]", meta: { exitCode: 1 } })).toEqual({
      success: true,
      content: "[exit code: 1]",
      exit_code: 1,
    });
  });
});
