import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGetSkillTool } from "../../src/skills/get-skill.js";
import { discoverSkills, type Skill } from "../../src/skills/loader.js";
import type { ToolContext } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";

const FIXTURE_PACKAGE = path.resolve("tests/fixtures/skills/package");
const skills = discoverSkills({ workspace: "/nonexistent-ws", home: "/nonexistent-home", packageDir: FIXTURE_PACKAGE }).skills;

let tmp: string;
let ctx: ToolContext;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "orca-get-skill-"));
  ctx = { signal: new AbortController().signal, workspace: new Workspace(tmp), agentId: "agent-7", callId: "call-1", emit: () => {} };
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("get_skill", () => {
  it("is a read-only tool that reads the skill's folder and needs no permission subject", () => {
    const tool = createGetSkillTool({ skills: () => skills });
    const beta = skills.find((s) => s.name === "beta")!;
    expect(tool.name).toBe("get_skill");
    expect(tool.readOnly({ name: "beta" })).toBe(true);
    expect(tool.access({ name: "beta" }, ctx.workspace)).toEqual({ reads: [beta.dir], writes: [] });
    expect(tool.access({ name: "nope" }, ctx.workspace)).toEqual({ reads: [], writes: [] });
    expect(tool.permissionSubject({ name: "beta" }, ctx.workspace)).toEqual({ kind: "none" });
    expect(tool.params.safeParse({ name: "" }).success).toBe(false);
    expect(tool.params.safeParse({}).success).toBe(false);
  });

  it("returns the body, the folder and every bundled file, recursively, without hidden files", async () => {
    const tool = createGetSkillTool({ skills: () => skills });
    const beta = skills.find((s) => s.name === "beta")!;
    const result = await tool.execute({ name: "beta" }, ctx);
    expect(result.ok).toBe(true);
    expect(result.content).toContain(`Folder: ${beta.dir}`);
    expect(result.content).toContain("# Beta\n\nRun `scripts/run.sh`, then read `references/guide.md`.");
    expect(result.content).toContain("Allowed tools: read_file, bash(git diff), bash(git diff *), mcp__fs__read_file");
    expect(result.meta?.files).toEqual([
      "forms.md",
      "assets/logo.txt",
      "references/guide.md",
      "references/deep/note.md",
      "scripts/run.sh",
    ]);
    for (const f of result.meta?.files as string[]) expect(result.content).toContain(`  ${f}\n`);
    expect(result.content).not.toContain(".hidden");
    expect(result.content).not.toMatch(/^\s+SKILL\.md$/m);
  });

  it("caps the file list and says how many more there are", async () => {
    const dir = path.join(tmp, "skills", "many");
    fs.mkdirSync(path.join(dir, "assets"), { recursive: true });
    fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: many\ndescription: Many files.\n---\nBody.\n");
    for (let i = 0; i < 130; i++) fs.writeFileSync(path.join(dir, "assets", `f${String(i).padStart(3, "0")}.txt`), "");
    const many = discoverSkills({ workspace: tmp, home: tmp, packageDir: tmp }).skills;
    const tool = createGetSkillTool({ skills: () => many });
    const result = await tool.execute({ name: "many" }, ctx);
    expect((result.meta?.files as string[]).length).toBe(100);
    expect(result.content).toContain("… and 30 more");
  });

  it("answers an unknown name with an error that lists the available names", async () => {
    const tool = createGetSkillTool({ skills: () => skills });
    const result = await tool.execute({ name: "gamma" }, ctx);
    expect(result.ok).toBe(false);
    expect(result.error).toBe('unknown skill "gamma"; available skills: alpha, beta');
    expect(result.content).toContain("available skills: alpha, beta");

    const none = await createGetSkillTool({ skills: () => [] }).execute({ name: "x" }, ctx);
    expect(none.error).toBe('unknown skill "x"; no skills are installed');
  });

  it("calls onLoaded with the agent and the skill after a successful load only", async () => {
    const loaded: [string, Skill][] = [];
    const tool = createGetSkillTool({ skills: () => skills, onLoaded: (agentId, skill) => loaded.push([agentId, skill]) });
    await tool.execute({ name: "nope" }, ctx);
    expect(loaded).toEqual([]);
    await tool.execute({ name: "beta" }, ctx);
    expect(loaded).toHaveLength(1);
    expect(loaded[0][0]).toBe("agent-7");
    expect(loaded[0][1].name).toBe("beta");
    expect(loaded[0][1].allowedTools).toContain("read_file");
  });

  it("returns one bundled file with `file`, confined to the skill's folder, without firing onLoaded", async () => {
    const loaded: string[] = [];
    const tool = createGetSkillTool({ skills: () => skills, onLoaded: (_id, s) => loaded.push(s.name) });
    const beta = skills.find((s) => s.name === "beta")!;
    const guide = await tool.execute({ name: "beta", file: "references/guide.md" }, ctx);
    expect(guide.ok).toBe(true);
    expect(guide.content).toBe(`File: ${path.join(beta.dir, "references", "guide.md")}\n\n# Guide\n`);
    expect(loaded).toEqual([]);

    const escape = await tool.execute({ name: "beta", file: "../alpha/SKILL.md" }, ctx);
    expect(escape.ok).toBe(false);
    expect(escape.error).toBe('../alpha/SKILL.md is outside the folder of skill "beta"');
    expect((await tool.execute({ name: "beta", file: "nope.md" }, ctx)).error).toBe('skill "beta" has no file nope.md');
    expect((await tool.execute({ name: "beta", file: "scripts" }, ctx)).error).toBe('scripts in skill "beta" is not a file');
  });

  it("refuses a bundled symlink that leads outside the skill's folder", async () => {
    const dir = path.join(tmp, "skills", "linky");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: linky\ndescription: Links.\n---\nBody.\n");
    fs.writeFileSync(path.join(tmp, "secret.txt"), "secret");
    fs.symlinkSync(path.join(tmp, "secret.txt"), path.join(dir, "notes.md"));
    const linky = discoverSkills({ workspace: tmp, home: tmp, packageDir: tmp }).skills;
    const result = await createGetSkillTool({ skills: () => linky }).execute({ name: "linky", file: "notes.md" }, ctx);
    expect(result.ok).toBe(false);
    expect(result.content).not.toContain("secret\n");
    expect(result.error).toBe('notes.md is outside the folder of skill "linky"');
  });

  it("sees skills discovered after it was created", async () => {
    let current: Skill[] = [];
    const tool = createGetSkillTool({ skills: () => current });
    expect((await tool.execute({ name: "alpha" }, ctx)).ok).toBe(false);
    current = skills;
    expect((await tool.execute({ name: "alpha" }, ctx)).content).toContain("Alpha instructions.");
  });
});
