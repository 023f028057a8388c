import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mapAllowedTools } from "../../src/skills/allowed-tools.js";
import { discoverSkills, skillSearchRoots } from "../../src/skills/loader.js";
import { formatSkillReport } from "../../src/skills/report.js";

const FIXTURE_PACKAGE = path.resolve("tests/fixtures/skills/package");

let tmp: string;
let workspace: string;
let home: string;
let emptyPackage: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "orca-skills-"));
  workspace = path.join(tmp, "ws");
  home = path.join(tmp, "home");
  emptyPackage = path.join(tmp, "pkg");
  for (const d of [workspace, home, emptyPackage]) fs.mkdirSync(d);
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(root: string, folder: string, frontmatter: string, body = "Do the thing."): string {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "SKILL.md");
  fs.writeFileSync(file, `---\n${frontmatter}\n---\n${body}\n`);
  return file;
}

const ok = (name: string, description = `The ${name} skill.`): string => `name: ${name}\ndescription: ${description}`;

describe("skillSearchRoots", () => {
  it("lists extra paths, workspace .orca and .agents, user config and the package, in that order", () => {
    const roots = skillSearchRoots({ workspace, home, packageDir: emptyPackage, extraPaths: ["extra", "~/mine", "/abs/x"] });
    expect(roots).toEqual([
      path.join(workspace, "extra"),
      path.join(home, "mine"),
      "/abs/x",
      path.join(workspace, ".orca", "skills"),
      path.join(workspace, ".agents", "skills"),
      path.join(home, ".config", "orca", "skills"),
      path.join(emptyPackage, "skills"),
    ]);
  });

  it("lists a folder once when a configured path names a default root", () => {
    const roots = skillSearchRoots({ workspace, home, packageDir: emptyPackage, extraPaths: [".orca/skills"] });
    expect(roots.filter((r) => r === path.join(workspace, ".orca", "skills"))).toHaveLength(1);
    expect(roots[0]).toBe(path.join(workspace, ".orca", "skills"));
  });
});

describe("discoverSkills", () => {
  it("finds skills in every location and labels where each came from", () => {
    writeSkill(path.join(tmp, "extra"), "from-extra", ok("from-extra"));
    writeSkill(path.join(workspace, ".orca", "skills"), "from-orca", ok("from-orca"));
    writeSkill(path.join(workspace, ".agents", "skills"), "from-agents", ok("from-agents"));
    writeSkill(path.join(home, ".config", "orca", "skills"), "from-user", ok("from-user"));
    const report = discoverSkills({ workspace, home, packageDir: FIXTURE_PACKAGE, extraPaths: [path.join(tmp, "extra")] });
    expect(report.skipped).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.skills.map((s) => [s.name, s.source])).toEqual([
      ["from-extra", "config"],
      ["from-orca", "workspace"],
      ["from-agents", "workspace (.agents)"],
      ["from-user", "user"],
      ["alpha", "package"],
      ["beta", "package"],
    ]);
    const user = report.skills.find((s) => s.name === "from-user")!;
    expect(user.dir).toBe(path.join(home, ".config", "orca", "skills", "from-user"));
    expect(user.file).toBe(path.join(user.dir, "SKILL.md"));
    expect(user.body).toBe("Do the thing.");
  });

  it("accepts a configured path that is itself a skill folder", () => {
    writeSkill(tmp, "single", ok("single"));
    const report = discoverSkills({ workspace, home, packageDir: emptyPackage, extraPaths: [path.join(tmp, "single")] });
    expect(report.skills.map((s) => s.name)).toEqual(["single"]);
  });

  it("reads every field of the format, with allowed-tools mapped to orca rules and metadata kept as written", () => {
    const report = discoverSkills({ workspace, home, packageDir: FIXTURE_PACKAGE });
    const beta = report.skills.find((s) => s.name === "beta")!;
    expect(beta).toMatchObject({
      description: "The beta fixture skill, with a folded description.",
      license: "Apache-2.0",
      compatibility: "Node 20+",
      allowedTools: ["read_file", "bash(git diff)", "bash(git diff *)", "mcp__fs__read_file"],
      metadata: { version: "1.0", owner: "tests" },
      source: "package",
    });
    expect(beta.body).toBe("# Beta\n\nRun `scripts/run.sh`, then read `references/guide.md`.");
    const alpha = report.skills.find((s) => s.name === "alpha")!;
    expect(alpha.license).toBeUndefined();
    expect(alpha.allowedTools).toEqual([]);
    expect(alpha.metadata).toEqual({});
  });

  it("accepts allowed-tools as a YAML list and as a comma list", () => {
    const root = path.join(workspace, ".orca", "skills");
    writeSkill(root, "listed", `${ok("listed")}\nallowed-tools:\n  - Read\n  - Bash(npm test:*)\n  - grep`);
    writeSkill(root, "commas", `${ok("commas")}\nallowed-tools: Read, Grep, Glob`);
    const report = discoverSkills({ workspace, home, packageDir: emptyPackage });
    expect(report.skipped).toEqual([]);
    expect(report.skills.find((s) => s.name === "listed")!.allowedTools).toEqual([
      "read_file",
      "bash(npm test)",
      "bash(npm test *)",
      "grep",
    ]);
    expect(report.skills.find((s) => s.name === "commas")!.allowedTools).toEqual(["read_file", "grep", "glob"]);
  });

  it("keeps the first skill of a name in search order and reports the later one as a duplicate", () => {
    const kept = writeSkill(path.join(workspace, ".orca", "skills"), "alpha", ok("alpha", "Workspace alpha."));
    const shadowedUser = writeSkill(path.join(home, ".config", "orca", "skills"), "alpha", ok("alpha", "User alpha."));
    const report = discoverSkills({ workspace, home, packageDir: FIXTURE_PACKAGE });
    const alphas = report.skills.filter((s) => s.name === "alpha");
    expect(alphas).toHaveLength(1);
    expect(alphas[0].description).toBe("Workspace alpha.");
    expect(report.duplicates).toEqual([
      { name: "alpha", path: shadowedUser, keptPath: kept },
      { name: "alpha", path: path.join(FIXTURE_PACKAGE, "skills", "alpha", "SKILL.md"), keptPath: kept },
    ]);
  });

  it("reports each file that breaks the format with its path and rule, and skips it", () => {
    const root = path.join(workspace, ".orca", "skills");
    const cases: [string, string, RegExp][] = [
      ["no-name", "description: Has no name.", /^name is required$/],
      ["Bad_Name", "name: Bad_Name\ndescription: Bad.", /^name "Bad_Name" may hold only lowercase letters, digits and hyphens$/],
      ["-lead", "name: -lead\ndescription: Bad.", /must not start or end with a hyphen/],
      ["double--hyphen", "name: double--hyphen\ndescription: Bad.", /must not contain a double hyphen/],
      ["x".repeat(65), `name: ${"x".repeat(65)}\ndescription: Long.`, /must be at most 64 characters/],
      ["folder-name", "name: other-name\ndescription: Mismatch.", /^name "other-name" does not match its folder name "folder-name"$/],
      ["no-desc", "name: no-desc", /^description is required$/],
      ["long-desc", `name: long-desc\ndescription: ${"d".repeat(1025)}`, /^description must be at most 1024 characters$/],
      ["long-compat", `name: long-compat\ndescription: Ok.\ncompatibility: ${"c".repeat(501)}`, /^compatibility must be at most 500/],
      ["bad-yaml", "name: bad-yaml\ndescription: [unclosed", /^frontmatter is not valid YAML: /],
      ["bad-meta", "name: bad-meta\ndescription: Ok.\nmetadata:\n  nested:\n    deep: x", /^metadata\.nested must be a string$/],
      ["bad-tools", "name: bad-tools\ndescription: Ok.\nallowed-tools:\n  key: value", /^allowed-tools must be a space-delimited string or a list/],
    ];
    const files = cases.map(([folder, fm]) => writeSkill(root, folder, fm));
    const noFrontmatter = path.join(root, "plain", "SKILL.md");
    fs.mkdirSync(path.dirname(noFrontmatter));
    fs.writeFileSync(noFrontmatter, "# Just markdown\n");
    writeSkill(root, "good", ok("good"));

    const report = discoverSkills({ workspace, home, packageDir: emptyPackage });
    expect(report.skills.map((s) => s.name)).toEqual(["good"]);
    expect(report.skipped).toHaveLength(cases.length + 1);
    cases.forEach(([, , rule], i) => {
      const entry = report.skipped.find((s) => s.path === files[i]);
      expect(entry, files[i]).toBeDefined();
      expect(entry!.reason).toMatch(rule);
    });
    expect(report.skipped.find((s) => s.path === noFrontmatter)!.reason).toMatch(/^no YAML frontmatter/);
  });

  it("reports a skill file with the wrong case instead of ignoring it silently", () => {
    const dir = path.join(workspace, ".orca", "skills", "lower");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "skill.md"), `---\n${ok("lower")}\n---\nx\n`);
    const report = discoverSkills({ workspace, home, packageDir: emptyPackage });
    expect(report.skills).toEqual([]);
    expect(report.skipped).toEqual([{ path: path.join(dir, "skill.md"), reason: "the file must be named SKILL.md" }]);
  });

  it("ignores folders without a skill file and plain files in a root", () => {
    const root = path.join(workspace, ".orca", "skills");
    fs.mkdirSync(path.join(root, "shared"), { recursive: true });
    fs.writeFileSync(path.join(root, "README.md"), "notes");
    writeSkill(root, "real", ok("real"));
    const report = discoverSkills({ workspace, home, packageDir: emptyPackage });
    expect(report.skills.map((s) => s.name)).toEqual(["real"]);
    expect(report.skipped).toEqual([]);
  });

  it("creates no folder when the search roots are missing", () => {
    const before = listTree(tmp);
    const cwdBefore = fs.readdirSync(process.cwd());
    const report = discoverSkills({ workspace, home, packageDir: emptyPackage, extraPaths: ["missing/skills"] });
    expect(report).toEqual({ skills: [], skipped: [], duplicates: [] });
    expect(listTree(tmp)).toEqual(before);
    expect(fs.readdirSync(process.cwd())).toEqual(cwdBefore);
  });
});

describe("formatSkillReport", () => {
  it("shows the roots, each skill with its origin, the skipped files with reasons and the shadowed ones", () => {
    const kept = writeSkill(path.join(workspace, ".orca", "skills"), "alpha", ok("alpha", "Workspace alpha."));
    const bad = writeSkill(path.join(workspace, ".orca", "skills"), "broken", "name: broken");
    const opts = { workspace, home, packageDir: FIXTURE_PACKAGE };
    const text = formatSkillReport(discoverSkills(opts), skillSearchRoots(opts));
    expect(text).toContain(`Searched, in order:\n  ${path.join(workspace, ".orca", "skills")}\n`);
    expect(text).toContain(`  alpha  [workspace]  ${kept}\n    Workspace alpha.\n`);
    expect(text).toContain("  beta  [package]");
    expect(text).toContain("    allowed-tools: read_file, bash(git diff), bash(git diff *), mcp__fs__read_file\n");
    expect(text).toContain(`Skipped (1):\n  ${bad}: description is required\n`);
    expect(text).toContain(`Shadowed (1; the first in search order wins):\n  alpha: ${path.join(FIXTURE_PACKAGE, "skills", "alpha", "SKILL.md")} (using ${kept})\n`);
  });

  it("says when nothing was found", () => {
    expect(formatSkillReport({ skills: [], skipped: [], duplicates: [] }, ["/a"])).toBe("Searched, in order:\n  /a\n\nNo skills found.\n");
  });
});

describe("mapAllowedTools", () => {
  it("maps Claude Code names to orca's and passes orca names through", () => {
    expect(
      mapAllowedTools(["Read", "Write", "Edit", "MultiEdit", "Grep", "Glob", "LS", "Bash", "Bash(git log:*)", "Bash(npm test)"]),
    ).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "grep",
      "glob",
      "list_dir",
      "bash",
      "bash(git log)",
      "bash(git log *)",
      "bash(npm test)",
    ]);
    expect(mapAllowedTools(["read_file", "bash(npm run *)", "mcp__github__*", "Read(src/**)", "WebFetch"])).toEqual([
      "read_file",
      "bash(npm run *)",
      "mcp__github__*",
      "read_file(src/**)",
      "WebFetch",
    ]);
  });
});

describe("mapAllowedTools on its own output", () => {
  it("changes nothing, so mapping a loaded skill's allowedTools again is safe", () => {
    const once = mapAllowedTools(["Read", "Bash(git diff:*)", "Edit(src/**)", "bash(npm test*)", "LS"]);
    expect(mapAllowedTools(once)).toEqual(once);
  });
});

function listTree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).sort();
}
