import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, parseConfigText } from "../../src/config/load.js";
import { PACKAGE_SNAPSHOT } from "../../src/config/package-snapshot.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * The build stores the parsed package config.yaml (dist/config-snapshot.json) so a start without a
 * config of its own skips the YAML parser. It must never serve anything but what parsing the file
 * as it is now would give.
 */

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function fakePackage(configText: string, snapshot?: { source: string; value: unknown }): string {
  const pkg = ws.file("pkg");
  fs.mkdirSync(path.join(pkg, "dist"), { recursive: true });
  fs.writeFileSync(path.join(pkg, "config.yaml"), configText);
  if (snapshot) fs.writeFileSync(path.join(pkg, PACKAGE_SNAPSHOT), JSON.stringify(snapshot));
  return pkg;
}

const load = (packageDir: string) => loadConfig({ workspace: ws.dir, home: ws.home, packageDir, env: {} }).config;

describe("the package config snapshot", () => {
  it("the build's snapshot holds the shipped config.yaml's text and exactly its parsed value", () => {
    const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, PACKAGE_SNAPSHOT), "utf8")) as { source: string; value: unknown };
    const text = fs.readFileSync(path.join(ROOT, "config.yaml"), "utf8");
    expect(snapshot.source).toBe(text);
    expect(snapshot.value).toEqual(parseConfigText(text, "config.yaml"));
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
    const broken = fakePackage("model:\n  name: parsed-too\n");
    fs.writeFileSync(path.join(broken, PACKAGE_SNAPSHOT), "{ not json");
    expect(load(broken).model.name).toBe("parsed-too");
  });

  it("the snapshot only stands in for the package's file: a user's own config is always parsed", () => {
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  name: mine\n" });
    const pkg = fakePackage("model:\n  name: shipped\n", { source: "model:\n  name: mine\n", value: { model: { name: "from-snapshot" } } });
    expect(loadConfig({ workspace: ws.dir, home: ws.home, packageDir: pkg, env: {} }).config.model.name).toBe("mine");
  });
});
