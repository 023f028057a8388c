import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import matter from "gray-matter";
import { checkedFrontMatter, loadAgentDefinitions } from "../../src/agent/definition.js";
import { checkedLayer, loadConfig, parseConfigText } from "../../src/config/load.js";
import { loadEnvironment } from "../../src/orchestrator/create.js";
import { checkedSkillFrontMatter, readSkillFrontMatter } from "../../src/skills/frontmatter.js";
import { discoverSkills } from "../../src/skills/loader.js";
import { PACKAGE_SNAPSHOT, packageAgentsSnapshot, type PackageSnapshot } from "../../src/util/package-snapshot.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * The build stores what every start parses from the package itself (config.yaml, the shipped
 * skills' front matter) in dist/package-snapshot.json, so a start skips the YAML parser. It must
 * never serve anything but what parsing the file as it is now would give.
 */

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function fakePackage(configText: string, config?: { source: string; value: unknown; checked?: unknown }, name = "pkg"): string {
  const pkg = ws.file(name);
  fs.mkdirSync(path.join(pkg, "dist"), { recursive: true });
  fs.writeFileSync(path.join(pkg, "config.yaml"), configText);
  if (config) fs.writeFileSync(path.join(pkg, PACKAGE_SNAPSHOT), JSON.stringify({ config, skills: [] }));
  return pkg;
}

const load = (packageDir: string) => loadConfig({ workspace: ws.dir, home: ws.home, packageDir, env: {} }).config;

describe("the package config snapshot", () => {
  it("the build's snapshot holds the shipped config.yaml and every shipped SKILL.md, each with exactly its parsed value", () => {
    const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, PACKAGE_SNAPSHOT), "utf8")) as PackageSnapshot;
    const text = fs.readFileSync(path.join(ROOT, "config.yaml"), "utf8");
    expect(snapshot.config.source).toBe(text);
    expect(snapshot.config.value).toEqual(parseConfigText(text, "config.yaml"));
    const shipped = fs.readdirSync(path.join(ROOT, "skills")).map((name) => fs.readFileSync(path.join(ROOT, "skills", name, "SKILL.md"), "utf8"));
    expect(snapshot.skills.map((s) => s.source).sort()).toEqual(shipped.sort());
    for (const skill of snapshot.skills) expect({ data: skill.data, content: skill.content }).toEqual(readSkillFrontMatter(skill.source));
  });

  it("is used while config.yaml reads as it did when it was made", () => {
    ws = tempWorkspace();
    // A snapshot whose value differs from its text shows which one was read.
    const pkg = fakePackage("model:\n  name: from-yaml\n", { source: "model:\n  name: from-yaml\n", value: { model: { name: "from-snapshot" } } });
    expect(load(pkg).model.name).toBe("from-snapshot");
  });

  it("an edited config.yaml is parsed, never answered from a stale snapshot", () => {
    ws = tempWorkspace();
    const pkg = fakePackage("model:\n  name: edited\n", { source: "model:\n  name: before\n", value: { model: { name: "before" } } });
    expect(load(pkg).model.name).toBe("edited");
  });

  it("a missing or broken snapshot: the file is parsed", () => {
    ws = tempWorkspace();
    expect(load(fakePackage("model:\n  name: parsed\n")).model.name).toBe("parsed");
    const broken = fakePackage("model:\n  name: parsed-too\n", undefined, "broken");
    fs.writeFileSync(path.join(broken, PACKAGE_SNAPSHOT), "{ not json");
    expect(load(broken).model.name).toBe("parsed-too");
  });

  it("the snapshot only stands in for the package's file: a user's own config is always parsed", () => {
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  name: mine\n" });
    const pkg = fakePackage("model:\n  name: shipped\n", { source: "model:\n  name: mine\n", value: { model: { name: "from-snapshot" } } });
    expect(loadConfig({ workspace: ws.dir, home: ws.home, packageDir: pkg, env: {} }).config.model.name).toBe("mine");
  });

  it("a shipped skill is read from the snapshot while its SKILL.md is unchanged; an edited one is parsed", () => {
    ws = tempWorkspace();
    const pkg = ws.file("pkg");
    const skill = (description: string) => `---\nname: demo\ndescription: ${description}\n---\nBody.\n`;
    fs.mkdirSync(path.join(pkg, "skills", "demo"), { recursive: true });
    fs.mkdirSync(path.join(pkg, "dist"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "skills", "demo", "SKILL.md"), skill("as written"));
    // The snapshot's front matter differs from its text, to show which one was read.
    const snapshot = { skills: [{ source: skill("as written"), data: { name: "demo", description: "from the snapshot" }, content: "Body.\n" }] };
    fs.writeFileSync(path.join(pkg, PACKAGE_SNAPSHOT), JSON.stringify(snapshot));
    const described = () => discoverSkills({ workspace: ws.dir, home: ws.home, packageDir: pkg }).skills.map((s) => s.description);
    expect(described()).toEqual(["from the snapshot"]);
    fs.writeFileSync(path.join(pkg, "skills", "demo", "SKILL.md"), skill("edited"));
    expect(described()).toEqual(["edited"]);
  });

  it("the build's snapshot holds every shipped agent with exactly its front matter, and gives the definitions parsing gives", () => {
    const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, PACKAGE_SNAPSHOT), "utf8")) as PackageSnapshot;
    const dir = path.join(ROOT, "agents");
    const shipped = fs.readdirSync(dir).filter((n) => n.endsWith(".md")).map((name) => fs.readFileSync(path.join(dir, name), "utf8"));
    expect(snapshot.agents.map((a) => a.source).sort()).toEqual(shipped.sort());
    for (const agent of snapshot.agents) {
      const { data, content } = matter(agent.source, {});
      expect({ data: agent.data, content: agent.content }).toEqual({ data, content });
    }
    expect(loadAgentDefinitions([dir], packageAgentsSnapshot(ROOT))).toEqual(loadAgentDefinitions([dir]));
  });

  it("a shipped agent is read from the snapshot while its file is unchanged; an edited one, or the same name elsewhere, is parsed", () => {
    const agent = (description: string) => `---\nname: helper\ndescription: ${description}\n---\nYou help.\n`;
    ws = tempWorkspace();
    const pkg = ws.file("pkg");
    fs.mkdirSync(path.join(pkg, "agents"), { recursive: true });
    fs.mkdirSync(path.join(pkg, "dist"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "config.yaml"), "");
    fs.writeFileSync(path.join(pkg, "agents", "helper.md"), agent("as written"));
    // The snapshot's front matter differs from its text, to show which one was read.
    fs.writeFileSync(path.join(pkg, PACKAGE_SNAPSHOT), JSON.stringify({ agents: [{ source: agent("as written"), data: { name: "helper", description: "from the snapshot" }, content: "You help.\n" }] }));
    const described = () => loadEnvironment({ workspace: ws.dir, home: ws.home, packageDir: pkg, env: {} }).agents.definitions.get("helper")?.description;
    expect(described()).toBe("from the snapshot");
    fs.writeFileSync(path.join(pkg, "agents", "helper.md"), agent("edited"));
    expect(described()).toBe("edited");
  });

  it("the build's snapshot holds the shipped config checked, exactly as checking it at start gives (no `$` in it: no environment changes it)", () => {
    const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, PACKAGE_SNAPSHOT), "utf8")) as PackageSnapshot;
    expect(JSON.stringify(snapshot.config.value)).not.toContain("$");
    expect(snapshot.config.checked).toStrictEqual(checkedLayer(snapshot.config.value, "config.yaml", {}));
    // A start with no config of its own: what it loads from the snapshot is what it loads without one.
    ws = tempWorkspace();
    const unsnapshotted = fakePackage(fs.readFileSync(path.join(ROOT, "config.yaml"), "utf8"));
    const env = { OPENAI_API_KEY: "sk-test-key", ORCA_MODEL: "m" };
    const fromSnapshot = loadConfig({ workspace: ws.dir, home: ws.home, packageDir: ROOT, env }).config;
    expect(fromSnapshot).toStrictEqual(loadConfig({ workspace: ws.dir, home: ws.home, packageDir: unsnapshotted, env }).config);
    for (const agent of snapshot.agents) expect(agent.checked).toStrictEqual((checkedFrontMatter(agent.data) as { checked: unknown }).checked);
  });

  it("the build's snapshot holds every shipped skill checked, exactly as checking it at start gives, and a start gives the skills parsing gives", () => {
    const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, PACKAGE_SNAPSHOT), "utf8")) as PackageSnapshot;
    for (const skill of snapshot.skills) expect(skill.checked).toEqual((checkedSkillFrontMatter(skill.data) as { checked: unknown }).checked);
    ws = tempWorkspace();
    const unsnapshotted = fakePackage(fs.readFileSync(path.join(ROOT, "config.yaml"), "utf8"));
    fs.cpSync(path.join(ROOT, "skills"), path.join(unsnapshotted, "skills"), { recursive: true });
    const skills = (packageDir: string) => discoverSkills({ workspace: ws.dir, home: ws.home, packageDir }).skills.map(({ dir: _dir, file: _file, ...skill }) => skill);
    expect(skills(ROOT).length).toBeGreaterThan(0);
    expect(skills(ROOT)).toEqual(skills(unsnapshotted));
  });

  it("a shipped skill checked at build time is taken as checked while its SKILL.md is unchanged; edited, it is checked again", () => {
    ws = tempWorkspace();
    const pkg = fakePackage("");
    const skill = (description: string) => `---\nname: demo\ndescription: ${description}\n---\nBody.\n`;
    fs.mkdirSync(path.join(pkg, "skills", "demo"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "skills", "demo", "SKILL.md"), skill("as written"));
    const data = { name: "demo", description: "as written" };
    const snapshot = { skills: [{ source: skill("as written"), data, content: "Body.\n", checked: { ...data, description: "as checked" } }] };
    fs.writeFileSync(path.join(pkg, PACKAGE_SNAPSHOT), JSON.stringify(snapshot));
    const described = () => discoverSkills({ workspace: ws.dir, home: ws.home, packageDir: pkg }).skills.map((s) => s.description);
    expect(described()).toEqual(["as checked"]);
    fs.writeFileSync(path.join(pkg, "skills", "demo", "SKILL.md"), skill("edited"));
    expect(described()).toEqual(["edited"]);
  });

  it("the checked config is used only while config.yaml reads as it did; edited, the file is checked again", () => {
    ws = tempWorkspace();
    const text = "model:\n  name: from-yaml\n";
    const pkg = fakePackage(text, { source: text, value: { model: { name: "from-yaml" } }, checked: { ...configSchemaDefaults(), model: { ...configSchemaDefaults().model, name: "checked" } } });
    expect(load(pkg).model.name).toBe("checked");
    fs.writeFileSync(path.join(pkg, "config.yaml"), "model:\n  name: edited\n");
    expect(load(pkg).model.name).toBe("edited");
  });

  it("a project's, your own or a --config file is checked as it reads, never taken from the package's snapshot, even with the package file's exact text", () => {
    ws = tempWorkspace();
    const text = "model:\n  name: from-yaml\n";
    // A snapshot that would hand out another model and bypass mode shows whether it was served.
    const forged = { ...configSchemaDefaults(), model: { ...configSchemaDefaults().model, name: "from-snapshot" }, permissions: { ...configSchemaDefaults().permissions, mode: "bypass" } };
    const pkg = fakePackage(text, { source: text, value: { model: { name: "from-snapshot" } }, checked: forged });
    expect(load(pkg).permissions.mode).toBe("bypass");
    const own = (file: string, configFile?: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      const config = loadConfig({ workspace: ws.dir, home: ws.home, packageDir: pkg, env: {}, ...(configFile ? { configFile } : {}) }).config;
      fs.rmSync(file);
      return [config.model.name, config.permissions.mode];
    };
    expect(own(path.join(ws.dir, ".orca", "config.yaml"))).toEqual(["from-yaml", "default"]);
    expect(own(path.join(ws.home, ".config", "orca", "config.yaml"))).toEqual(["from-yaml", "default"]);
    const elsewhere = ws.file("elsewhere.yaml");
    expect(own(elsewhere, elsewhere)).toEqual(["from-yaml", "default"]);
  });
});

const configSchemaDefaults = () => checkedLayer({}, "config", {});
