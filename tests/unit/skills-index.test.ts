import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { preloadSkills, renderSkillsIndex } from "../../src/skills/index-prompt.js";
import { discoverSkills, type Skill } from "../../src/skills/loader.js";

const FIXTURE_PACKAGE = path.resolve("tests/fixtures/skills/package");
const fixtureSkills = (): Skill[] =>
  discoverSkills({ workspace: "/nonexistent-ws", home: "/nonexistent-home", packageDir: FIXTURE_PACKAGE }).skills;

function fakeSkill(i: number, description = `Skill number ${i} does one specific thing.`): Skill {
  return {
    name: `skill-${i}`,
    description,
    allowedTools: [],
    metadata: {},
    dir: `/skills/skill-${i}`,
    file: `/skills/skill-${i}/SKILL.md`,
    body: `Body ${i}`,
    source: "package",
  };
}

const listedNames = (text: string): string[] => [...text.matchAll(/^- ([a-z0-9-]+):/gm)].map((m) => m[1]);

describe("renderSkillsIndex", () => {
  it("is empty when there are no skills", () => {
    expect(renderSkillsIndex([], 8000)).toBe("");
  });

  it("lists name, description and SKILL.md location, and allowed-tools when present", () => {
    const skills = fixtureSkills();
    const text = renderSkillsIndex(skills, 8000);
    expect(text).toContain("get_skill");
    expect(text).toContain(`- alpha: The alpha fixture skill. Use it in tests.\n  location: ${skills[0].file}\n`);
    expect(text).toContain(
      `- beta: The beta fixture skill, with a folded description.\n  location: ${skills[1].file}\n` +
        "  allowed-tools: read_file, bash(git diff), bash(git diff *), mcp__fs__read_file\n",
    );
    expect(text.match(/allowed-tools/g)).toHaveLength(1);
    expect(text).not.toContain("not listed");
  });

  it("puts a multi-line description on one line", () => {
    const text = renderSkillsIndex([fakeSkill(1, "First line.\n\nSecond   line.")], 8000);
    expect(text).toContain("- skill-1: First line. Second line.\n");
  });

  it("stays within the cap and says how many skills were left out", () => {
    const skills = Array.from({ length: 50 }, (_, i) => fakeSkill(i));
    const full = renderSkillsIndex(skills, 1_000_000);
    expect(listedNames(full)).toHaveLength(50);

    const text = renderSkillsIndex(skills, 1500);
    expect(text.length).toBeLessThanOrEqual(1500);
    const listed = listedNames(text);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual(skills.slice(0, listed.length).map((s) => s.name));
    expect(text).toContain(`(${50 - listed.length} more skills not listed;`);
  });

  it("never exceeds the cap and always accounts for every skill", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 6000 }), (count, cap) => {
        const skills = Array.from({ length: count }, (_, i) => fakeSkill(i));
        const text = renderSkillsIndex(skills, cap);
        expect(text.length).toBeLessThanOrEqual(cap);
        const listed = listedNames(text).length;
        const more = /\((\d+) more skills? not listed;/.exec(text);
        if (listed === count) expect(more).toBeNull();
        else if (more) expect(Number(more[1])).toBe(count - listed);
        else expect(listed).toBe(0); // a cap too small for the header gets the one-line form
      }),
    );
  });
});

describe("preloadSkills", () => {
  it("returns the bodies of the named skills, with their folders and files, and the missing names", () => {
    const skills = fixtureSkills();
    const { text, missing } = preloadSkills(["beta", "nope", "beta", "alpha"], skills);
    expect(missing).toEqual(["nope"]);
    expect(text).toMatch(/^# Preloaded skills/);
    expect(text).toContain("## Skill: beta\n");
    expect(text).toContain(`Folder: ${skills[1].dir}`);
    expect(text).toContain("  scripts/run.sh");
    expect(text).toContain("Run `scripts/run.sh`, then read `references/guide.md`.");
    expect(text).toContain("## Skill: alpha\n");
    expect(text).toContain("Alpha instructions.");
    expect(text.match(/## Skill: beta/g)).toHaveLength(1);
    expect(text.indexOf("## Skill: beta")).toBeLessThan(text.indexOf("## Skill: alpha"));
  });

  it("is empty when no name matches", () => {
    expect(preloadSkills(["ghost"], fixtureSkills())).toEqual({ text: "", missing: ["ghost"] });
    expect(preloadSkills([], fixtureSkills())).toEqual({ text: "", missing: [] });
  });
});
