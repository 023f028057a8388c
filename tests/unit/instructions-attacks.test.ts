import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadInstructions } from "../../src/config/instructions.js";
import { loadConfig } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { loadHooks } from "../../src/hooks/config.js";
import { loadMcpJson } from "../../src/mcp/mcp-json.js";
import { projectSettings } from "../../src/config/trust.js";
import { writeStartingInstructions } from "../../src/orchestrator/init-instructions.js";
import { loadSessionInstructions } from "../../src/orchestrator/instructions.js";
import { describeProjectSetting } from "../../src/orchestrator/project-settings.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/** A cloned project's instruction files trying to read what is not the project's, before and after trust. */

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const config = configSchema.parse({});
const survey = (workspace: string, home: string) =>
  projectSettings(workspace, { home }).map((s) => [s.name, describeProjectSetting(s, { workspace, home })] as const);

describe("instructions stay in the project", () => {
  it("a download under a home that is a dotfiles repository cannot import the user's key, nor load AGENTS.md from home", () => {
    ws = tempWorkspace();
    const home = ws.home;
    fs.mkdirSync(path.join(home, ".git"));
    write(path.join(home, ".ssh", "id_rsa"), "MARK-PRIVATE-KEY\n");
    write(path.join(home, "AGENTS.md"), "MARK-HOME-AGENTS\n");
    write(path.join(home, "notes.md"), "MARK-HOME-NOTES\n");
    const evil = path.join(home, "dl", "evil");
    write(path.join(evil, "CLAUDE.md"), "Style guide: @docs/style.md\n");
    write(path.join(evil, "docs", "style.md"), "MARK-STYLE\nMore: @~/.ssh/id_rsa and @../../../notes.md\n");
    // No deny list at all: the bound alone keeps them out.
    const report = loadInstructions({ workspace: evil, home, project: true, readDenied: () => undefined, maxChars: 40_000 });
    expect(report.text).toContain("MARK-STYLE");
    for (const leaked of ["MARK-PRIVATE-KEY", "MARK-HOME-AGENTS", "MARK-HOME-NOTES"]) expect(report.text).not.toContain(leaked);
    expect(report.files.map((f) => f.name)).toEqual(["CLAUDE.md", "docs/style.md"]);
    // The trust prompt shows the nested import, and what it would not read.
    expect(survey(evil, home)).toEqual([
      [
        "CLAUDE.md",
        [
          "instructions for every agent: 28 characters",
          "imports docs/style.md (55 characters)",
          `does not import ../../.ssh/id_rsa: resolves outside the workspace (${path.join(home, ".ssh", "id_rsa")})`,
          `does not import ../../notes.md: resolves outside the workspace (${path.join(home, "notes.md")})`,
        ],
      ],
    ]);
  });

  it("a repository that is not home still bounds them: AGENTS.md above the workspace loads", () => {
    ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.dir]);
    write(ws.file("AGENTS.md"), "MARK-ROOT\n");
    write(ws.file("pkg/CLAUDE.md"), "@../docs/x.md\n");
    write(ws.file("docs/x.md"), "MARK-X\n");
    const report = loadSessionInstructions({ config, workspaceRoot: ws.file("pkg"), home: ws.home, project: true });
    expect(report.files.map((f) => f.name)).toEqual(["../AGENTS.md", "CLAUDE.md", "../docs/x.md"]);
  });

  it("run in home itself: sandbox.deny_read and the protected paths hide keys and git's config", () => {
    ws = tempWorkspace();
    const home = ws.home;
    execFileSync("git", ["init", "-q", home]);
    write(path.join(home, ".ssh", "id_rsa"), "MARK-PRIVATE-KEY\n");
    fs.appendFileSync(path.join(home, ".git", "config"), "[remote \"o\"]\n\turl = https://user:MARK-TOKEN@example.com/r\n");
    write(path.join(home, "CLAUDE.md"), "@.ssh/id_rsa\n@~/.ssh/id_rsa\n@.git/config\n");
    const report = loadSessionInstructions({ config, workspaceRoot: home, home, project: true });
    for (const leaked of ["MARK-PRIVATE-KEY", "MARK-TOKEN"]) expect(report.text).not.toContain(leaked);
    expect(report.skipped.map((s) => s.reason)).toEqual([
      "hidden by the deny rule sandbox.deny_read (~/.ssh)",
      "hidden by the deny rule sandbox.deny_read (~/.ssh)",
      "hidden by the deny rule protected path (.git/config)",
    ]);
  });

  it("a folder above the file swapped for a link between the check and the open is caught", () => {
    ws = tempWorkspace({ "CLAUDE.md": "@docs/style.md\n", "docs/style.md": "MARK-STYLE\n" });
    const outside = path.join(path.dirname(ws.dir), "outside");
    write(path.join(outside, "style.md"), "MARK-OUTSIDE\n");
    // The deny check runs after the path was resolved and confined, before the open: the attacker's moment.
    const readDenied = (absolute: string) => {
      if (absolute === ws!.file("docs/style.md") && fs.lstatSync(ws!.file("docs")).isDirectory()) {
        fs.renameSync(ws!.file("docs"), ws!.file("docs-was"));
        fs.symlinkSync(outside, ws!.file("docs"));
      }
      return undefined;
    };
    const report = loadInstructions({ workspace: ws.dir, home: ws.home, project: true, readDenied, maxChars: 40_000 });
    expect(report.text).not.toContain("MARK-OUTSIDE");
    expect(report.skipped).toEqual([{ name: "docs/style.md", reason: "changed while it was read (a folder above it was replaced)", origin: ws.file("CLAUDE.md") }]);
  });
});

describe("nothing a project ships can hang or flood orca before trust", () => {
  it("AGENTS.md a link to /dev/zero, CLAUDE.md a FIFO, settings linked to a FIFO or oversized: one line each, no hang", () => {
    ws = tempWorkspace();
    fs.symlinkSync("/dev/zero", ws.file("AGENTS.md"));
    execFileSync("mkfifo", [ws.file("CLAUDE.md")]);
    const fifo = path.join(path.dirname(ws.dir), "fifo");
    execFileSync("mkfifo", [fifo]);
    fs.mkdirSync(ws.file(".orca/skills/s"), { recursive: true });
    fs.symlinkSync(fifo, ws.file(".orca/config.yaml"));
    write(ws.file(".mcp.json"), `{"mcpServers": {}, "pad": "${"x".repeat(1_000_000)}"}`);
    execFileSync("mkfifo", [ws.file(".orca/skills/s/SKILL.md")]);
    fs.mkdirSync(ws.file(".claude"));
    fs.symlinkSync("/dev/zero", ws.file(".claude/settings.json"));
    execFileSync("mkfifo", [ws.file(".claude/settings.local.json")]);
    const described = Object.fromEntries(
      projectSettings(ws.dir, { home: ws.home }).map((s) => [s.name, describeProjectSetting(s, { workspace: ws!.dir, home: ws!.home })]),
    );
    // config.yaml (a link to a FIFO) and the .claude files are no regular files: not settings at all.
    expect(described).toEqual({
      ".mcp.json": ["cannot read: 1000029 bytes, over 1000000"],
      ".orca/skills": [],
      "AGENTS.md": ["not read: not a regular file"],
      "CLAUDE.md": ["not read: not a regular file"],
    });
    // The loaders, which read some of these even for a folder not trusted, say so in one line too.
    expect(loadMcpJson(ws.dir).errors).toEqual([".mcp.json: cannot read: 1000029 bytes, over 1000000"]);
    expect(() => loadConfig({ workspace: ws!.dir, home: ws!.home, configFile: ws!.file(".orca/config.yaml"), packageDir: ROOT })).toThrow(/config\.yaml: cannot read: not a regular file/);
    const hooks = loadHooks({ config, configPath: null, workspace: ws.dir, home: ws.home, trustProject: false });
    expect(hooks.claudeFiles.map((f) => f.status)).toEqual(["invalid", "invalid"]);
    const report = loadSessionInstructions({ config, workspaceRoot: ws.dir, home: ws.home, project: true });
    expect(report.text).toBe("");
  });

  it("/init with a FIFO for README.md and package.json still writes its AGENTS.md", () => {
    ws = tempWorkspace({ "Makefile": "test:\n\ttrue\n" });
    execFileSync("mkfifo", [ws.file("README.md")]);
    execFileSync("mkfifo", [ws.file("package.json")]);
    const result = writeStartingInstructions(ws.dir);
    expect("written" in result && result.text).toContain("make test");
  });
});
