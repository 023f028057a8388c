import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectSettings } from "../../src/config/trust.js";
import { describeProjectSetting } from "../../src/orchestrator/project-settings.js";
import { commandDirs, expandCommand, loadCommands, splitArguments } from "../../src/skills/commands.js";
import { codeBlocks, copySelection, osc52 } from "../../src/ui/clipboard.js";
import { exportTarget, writeExport } from "../../src/ui/export.js";
import { completeMention, mentionAt, mentionsIn } from "../../src/ui/mentions.js";
import { composePrompt, displayPrompt } from "../../src/ui/prompt-context.js";
import { modelArgProblem, parseSlash, slashCompletions } from "../../src/ui/slash.js";
import { expandPastes, isLongPaste, pasteEndingAt, pasteToken } from "../../src/ui/state/pastes.js";

describe("slash input", () => {
  it("puts the exact name first, so /mode + Enter runs /mode", () => {
    expect(slashCompletions("/mode").map((c) => c.label)).toEqual(["/mode", "/model"]);
    expect(slashCompletions("/mo").map((c) => c.label)).toEqual(["/model", "/mode"]);
  });
  it("offers and parses custom commands after the built-in ones", () => {
    const custom = [{ name: "result", args: "<file>", help: "result" }];
    expect(slashCompletions("/res", custom).map((c) => c.label)).toEqual(["/resume", "/result"]);
    expect(parseSlash("/result a.ts b", custom)).toEqual({ kind: "custom", name: "result", arg: "a.ts b" });
    expect(parseSlash("/result", [])).toEqual({ kind: "unknown", name: "result" });
  });
  it("checks /model's argument", () => {
    for (const ok of ["gpt-4.1", "anthropic/claude-sonnet-4-5", "qwen2.5-coder:7b", "meta-llama/Llama-3.1-8B"]) expect(modelArgProblem(ok)).toBeNull();
    for (const bad of ["/foo", "a b", "x/", "../x", "-m"]) expect(modelArgProblem(bad)).toMatch(/is not a model name/);
  });
});

describe("@mentions", () => {
  it("finds the mention at the cursor and completes it", () => {
    expect(mentionAt("look at @sr", 11)).toEqual({ start: 8, typed: "sr" });
    expect(mentionAt("mail a@b", 8)).toBeNull();
    expect(completeMention("look at @sr", 8, 11, "src/")).toEqual({ text: "look at @src/", cursor: 13 });
    expect(completeMention("@a", 0, 2, "a.ts")).toEqual({ text: "@a.ts ", cursor: 6 });
  });
  it("lists a prompt's mentions without trailing punctuation or repeats", () => {
    expect(mentionsIn("see @a.ts, @b/c.md. and @a.ts; x@y.z @")).toEqual(["a.ts", "b/c.md"]);
  });
});

describe("prompt blocks", () => {
  it("sends shell output before and files after; the transcript shows one line each", () => {
    const text = composePrompt("why?", [{ command: 'echo "hi"', output: "hi", exitCode: 0 }], [{ path: "a.ts", text: "x\n" }]);
    expect(text).toContain('<user-shell command="echo &quot;hi&quot;" exit="0">\nhi\n</user-shell>');
    expect(text).toContain('<attached-file path="a.ts">\nx\n</attached-file>');
    expect(displayPrompt(text)).toBe('[ran ! echo "hi"]\n\nwhy?\n\n[attached @a.ts]');
    expect(displayPrompt("plain")).toBe("plain");
  });
});

describe("pastes", () => {
  it("collapses long pastes into unique tokens and expands them whole", () => {
    const long = "a\nb\nc\nd";
    expect(isLongPaste(long)).toBe(true);
    expect(isLongPaste("short")).toBe(false);
    expect(isLongPaste("x".repeat(6000))).toBe(true);
    expect(pasteToken("x".repeat(6000), 1)).toBe("[pasted 6,000 chars]");
    const p1 = { token: pasteToken(long, 1), text: long };
    const p2 = { token: pasteToken("y".repeat(600), 2), text: "y".repeat(600) };
    expect(p2.token).toBe("[pasted #2 600 chars]");
    const box = `see ${p1.token} and ${p2.token}`;
    expect(expandPastes(box, [p1, p2])).toBe(`see ${long} and ${"y".repeat(600)}`);
    expect(pasteEndingAt(box, box.length, [p1, p2])).toBe(p2);
    expect(pasteEndingAt(box, box.length - 1, [p1, p2])).toBeUndefined();
  });
});

describe("custom commands", () => {
  it("substitutes $ARGUMENTS and $1…, and appends arguments a body never names", () => {
    expect(expandCommand({ body: "fix $ARGUMENTS" }, "issue 12")).toBe("fix issue 12");
    expect(expandCommand({ body: "from $1 to $2 ($3)" }, '"a b" c')).toBe("from a b to c ()");
    expect(expandCommand({ body: "plain" }, "x")).toBe("plain\n\nARGUMENTS: x");
    expect(splitArguments(`one 'two three' "four"`)).toEqual(["one", "two three", "four"]);
  });
  it("loads front matter, lets the first folder win, never shadows a built-in, skips symlinks", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-cmds-"));
    try {
      const a = path.join(root, "a");
      const b = path.join(root, "b");
      fs.mkdirSync(a);
      fs.mkdirSync(b);
      fs.writeFileSync(path.join(a, "review.md"), "---\ndescription: Review it\nargument-hint: <file>\nallowed-tools: Bash(git diff:*) Read\nmodel: gpt-4.1\n---\nReview $ARGUMENTS\n");
      fs.writeFileSync(path.join(b, "review.md"), "other");
      fs.writeFileSync(path.join(b, "help.md"), "mine");
      fs.writeFileSync(path.join(b, "bad.md"), "---\n: [\n---\nx");
      fs.symlinkSync("/etc/hostname", path.join(b, "link.md"));
      const loaded = loadCommands([{ dir: a, origin: "project" }, { dir: b, origin: "user" }], ["help"]);
      expect(loaded.commands).toEqual([
        { name: "review", description: "Review it", argumentHint: "<file>", allowedTools: ["Bash(git diff:*)", "Read"], model: "gpt-4.1", body: "Review $ARGUMENTS", file: path.join(a, "review.md"), origin: "project" },
      ]);
      expect(loaded.skipped.join("\n")).toMatch(/help\.md: \/help is a built-in command/);
      expect(loaded.skipped.join("\n")).toMatch(/bad\.md: front matter is not valid YAML/);
      expect(loaded.skipped.join("\n")).toMatch(/link\.md: not a regular file/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a project's commands are its settings", () => {
  it("the trust prompt lists them, and an untrusted folder's are not read", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-cmd-trust-"));
    try {
      fs.mkdirSync(path.join(root, ".claude/commands"), { recursive: true });
      fs.writeFileSync(path.join(root, ".claude/commands/deploy.md"), "run the deploy");
      const listed = projectSettings(root).filter((s) => s.kind === "commands");
      expect(listed.map((s) => s.name)).toEqual([".claude/commands"]);
      expect(describeProjectSetting(listed[0]!, { workspace: root, home: os.tmpdir() })).toEqual(["custom commands: /deploy (prompts sent when you run them)"]);
      expect(loadCommands(commandDirs(root, undefined, false), []).commands).toEqual([]);
      expect(loadCommands(commandDirs(root, undefined, true), []).commands.map((c) => c.name)).toEqual(["deploy"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("/copy and /export", () => {
  it("picks the answer or its Nth code block, and wraps OSC 52 for tmux", () => {
    const answer = "a\n```js\nconst x = 1;\n```\nb\n~~~\ntwo\n~~~\n";
    expect(codeBlocks(answer)).toEqual(["const x = 1;", "two"]);
    expect(copySelection(answer, "2")).toEqual({ text: "two", what: "code block 2 of 2" });
    expect(copySelection(answer, "3")).toEqual({ error: "the last answer has 2 code blocks" });
    expect(copySelection("", "")).toMatchObject({ error: expect.stringMatching(/nothing to copy/) });
    expect(osc52("hi", false)).toBe("\x1b]52;c;aGk=\x07");
    expect(osc52("hi", true)).toBe("\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\");
  });
  it("writes an export in the workspace, never over a file without --force, never through a symlinked folder", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-export-")));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "orca-export-out-"));
    try {
      expect(exportTarget("", "s1")).toEqual({ file: "orca-s1.md", force: false });
      expect(exportTarget("--force x.md", "s1")).toEqual({ file: "x.md", force: true });
      expect(await writeExport(root, exportTarget("", "s1"), "one")).toBe(path.join(root, "orca-s1.md"));
      await expect(writeExport(root, exportTarget("", "s1"), "two")).rejects.toThrow(/exists; \/export --force/);
      expect(fs.readFileSync(path.join(root, "orca-s1.md"), "utf8")).toBe("one");
      await writeExport(root, exportTarget("--force orca-s1.md", "s1"), "two");
      expect(fs.readFileSync(path.join(root, "orca-s1.md"), "utf8")).toBe("two");
      fs.symlinkSync(outside, path.join(root, "out"));
      await expect(writeExport(root, exportTarget("out/x.md", "s1"), "three")).rejects.toThrow();
      expect(fs.existsSync(path.join(outside, "x.md"))).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
