import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importsOf } from "../../src/config/instruction-imports.js";
import { loadInstructions, type LoadInstructionsOptions } from "../../src/config/instructions.js";
import { projectSettings } from "../../src/config/trust.js";
import { writeStartingInstructions } from "../../src/orchestrator/init-instructions.js";
import { describeProjectSetting } from "../../src/orchestrator/project-settings.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const load = (w: TempWorkspace, opts: Partial<LoadInstructionsOptions> = {}) =>
  loadInstructions({ workspace: w.dir, home: w.home, project: true, readDenied: () => undefined, maxChars: 40_000, ...opts });

describe("@path imports", () => {
  it("finds @paths in prose, not in code, mail addresses or URLs", () => {
    const text = [
      "See @docs/a.md and @./b.md, then @~/c.md.",
      "@../d.md",
      "Inline `@e.md` and ``x @f.md`` are code; so is",
      "```sh",
      "npm i @scope/pkg",
      "```",
      "~~~",
      "@g.md",
      "~~~",
      "mail me@example.com or see @https://example.com/x",
      "(@h.md)",
    ].join("\n");
    expect(importsOf(text)).toEqual(["docs/a.md", "./b.md", "~/c.md", "../d.md"]);
  });
});

describe("loadInstructions", () => {
  it("confines every file and import to the workspace when there is no repository, links resolved", () => {
    ws = tempWorkspace({ "CLAUDE.md": "MARK-CLAUDE\n@../secret.txt\n@link/x.md\n@/etc/hostname\n" });
    const outside = path.dirname(ws.dir);
    write(path.join(outside, "secret.txt"), "MARK-SECRET\n");
    fs.mkdirSync(path.join(outside, "d"));
    write(path.join(outside, "d", "x.md"), "MARK-LINKED\n");
    fs.symlinkSync(path.join(outside, "d"), ws.file("link"));
    fs.symlinkSync(path.join(outside, "secret.txt"), ws.file("AGENTS.md"));
    const report = load(ws);
    expect(report.text).toContain("MARK-CLAUDE");
    for (const leaked of ["MARK-SECRET", "MARK-LINKED"]) expect(report.text).not.toContain(leaked);
    expect(report.files.map((f) => f.name)).toEqual(["CLAUDE.md"]);
    expect(report.skipped.map((s) => s.name)).toEqual(["AGENTS.md", "../secret.txt", "link/x.md", path.relative(ws.dir, "/etc/hostname")]);
    expect(report.skipped.every((s) => s.reason.startsWith("resolves outside the workspace") || s.reason === "not found")).toBe(true);
  });

  it("inside a repository, a file above the workspace loads and an import above the repository root does not", () => {
    ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.dir]);
    write(ws.file("AGENTS.md"), "MARK-ROOT\n");
    write(ws.file("pkg/CLAUDE.md"), "@../AGENTS.md\n@../../outside.md\n");
    write(path.join(path.dirname(ws.dir), "outside.md"), "MARK-OUTSIDE\n");
    const report = loadInstructions({ workspace: ws.file("pkg"), home: ws.home, project: true, readDenied: () => undefined, maxChars: 40_000 });
    expect(report.files.map((f) => f.name)).toEqual(["../AGENTS.md", "CLAUDE.md"]);
    expect(report.text).not.toContain("MARK-OUTSIDE");
    expect(report.skipped).toEqual([{ name: "../../outside.md", reason: expect.stringMatching(/^resolves outside the repository/) as unknown as string, origin: ws.file("pkg/CLAUDE.md") }]);
  });

  it("an untrusted folder gives only the user's own file; the trust survey lists the project's", () => {
    ws = tempWorkspace({ "AGENTS.md": "MARK-PROJECT\n", "CLAUDE.md": "MARK-CLAUDE\n" });
    write(path.join(ws.home, ".config", "orca", "AGENTS.md"), "MARK-USER\n");
    const report = load(ws, { project: false });
    expect(report.files.map((f) => [f.name, f.source])).toEqual([["~/.config/orca/AGENTS.md", "user"]]);
    expect(report.text).not.toContain("MARK-PROJECT");
    const listed = projectSettings(ws.dir, { home: ws.home }).filter((s) => s.kind === "instructions");
    expect(listed.map((s) => s.name)).toEqual(["AGENTS.md", "CLAUDE.md"]);
    // What the trust prompt says of each: its size, and what a CLAUDE.md would import, or why not.
    write(ws.file("CLAUDE.md"), "MARK-CLAUDE\n@docs/a.md and @../b.md\n");
    write(ws.file("docs/a.md"), "MARK-A\n");
    expect(listed.map((s) => describeProjectSetting(s, { workspace: ws!.dir, home: ws!.home }))).toEqual([
      ["instructions for every agent: 13 characters"],
      ["instructions for every agent: 36 characters", "imports docs/a.md (7 characters)", `does not import ../b.md: not found`],
    ]);
  });

  it("the deny rule is asked about each file's real path", () => {
    ws = tempWorkspace({ "CLAUDE.md": "@notes/private.md\n@alias.md\n", "notes/private.md": "MARK-PRIVATE\n" });
    fs.symlinkSync("notes/private.md", ws.file("alias.md"));
    const report = load(ws, { readDenied: (p) => (p === ws!.file("notes/private.md") ? "read_file(notes/**)" : undefined) });
    expect(report.text).not.toContain("MARK-PRIVATE");
    expect(report.skipped.map((s) => s.reason)).toEqual(["hidden by the deny rule read_file(notes/**)", "hidden by the deny rule read_file(notes/**)"]);
  });

  it("a file too large for what is left is not read whole, and a NUL-holding one is not text", () => {
    ws = tempWorkspace({ "AGENTS.md": "x".repeat(100), "CLAUDE.md": "a\0b" });
    const report = load(ws, { maxChars: 10 });
    expect(report.skipped).toEqual([
      { name: "AGENTS.md", reason: "100 bytes; over what is left of instructions.max_chars (10 of 10)" },
      { name: "CLAUDE.md", reason: "not a text file" },
    ]);
    expect(report.text).toBe("");
  });
});

describe("/init", () => {
  it("writes a starting AGENTS.md from the project's manifests, and never overwrites one", () => {
    ws = tempWorkspace({
      "package.json": JSON.stringify({ name: "demo-app", description: "A demo app.", scripts: { build: "tsc", test: "vitest", lint: "eslint ." } }),
      "package-lock.json": "{}",
      "src/a.ts": "",
      "src/b.ts": "",
      "scripts/c.sh": "",
      "node_modules/x/index.js": "",
    });
    const result = writeStartingInstructions(ws.dir);
    expect("written" in result && result.written).toBe(ws.file("AGENTS.md"));
    const text = ws.read("AGENTS.md");
    expect(text).toMatch(/^# demo-app\n/);
    expect(text).toContain("- A demo app.");
    expect(text).toContain("- Languages: TypeScript (2 files), Shell (1 files)");
    expect(text).toContain("- Top-level folders: `scripts/`, `src/`");
    for (const line of ["- Install: `npm ci`", "- Build: `npm run build`", "- Test: `npm test`", "- Lint: `npm run lint`"]) expect(text).toContain(line);
    fs.writeFileSync(ws.file("AGENTS.md"), "mine\n");
    expect(writeStartingInstructions(ws.dir)).toEqual({ exists: ws.file("AGENTS.md") });
    expect(ws.read("AGENTS.md")).toBe("mine\n");
  });

  it("does not follow a link named AGENTS.md, nor bring a linked README's text in", () => {
    ws = tempWorkspace();
    const outside = path.join(path.dirname(ws.dir), "target.md");
    fs.writeFileSync(path.join(path.dirname(ws.dir), "readme-outside.md"), "MARK-OUTSIDE-README\n");
    fs.symlinkSync(path.join(path.dirname(ws.dir), "readme-outside.md"), ws.file("README.md"));
    fs.symlinkSync(outside, ws.file("AGENTS.md"));
    expect(writeStartingInstructions(ws.dir)).toEqual({ exists: ws.file("AGENTS.md") });
    expect(fs.existsSync(outside)).toBe(false);
    fs.unlinkSync(ws.file("AGENTS.md"));
    writeStartingInstructions(ws.dir);
    expect(ws.read("AGENTS.md")).not.toContain("MARK-OUTSIDE-README");
  });
});

describe("/memory", () => {
  it("lists the loaded files in prompt order with where each came from, then the skipped ones with why", async () => {
    const { memoryDoc } = await import("../../src/ui/docs.js");
    ws = tempWorkspace({ "AGENTS.md": "a\n", "CLAUDE.md": "@docs/x.md\n@../out.md\n", "docs/x.md": "x\n" });
    write(path.join(path.dirname(ws.dir), "out.md"), "o\n");
    write(path.join(ws.home, ".config", "orca", "AGENTS.md"), "mine\n");
    const report = load(ws);
    const lines = memoryDoc({ memory: () => ({ ...report, untrusted: false }) }).map((l) => l.text.replace(/ +/g, " "));
    expect(lines).toEqual([
      "Instructions in the system prompt (in this order)",
      "~/.config/orca/AGENTS.md 5 chars yours",
      "AGENTS.md 2 chars project",
      "CLAUDE.md 22 chars project",
      "docs/x.md 2 chars imported by CLAUDE.md",
      "",
      "Skipped",
      expect.stringMatching(/^\.\.\/out\.md resolves outside the workspace/) as unknown as string,
    ]);
  });
});
