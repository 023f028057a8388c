import fs from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { parse } from "yaml";
import { startScriptedServer } from "../../src/model/scripted.js";
import { addAllowRules } from "../../src/tools/permissions/rule-file.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/** `orca permissions`: the rules in force with the config file they came from; `remove` takes one out of that file. */

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const PROJECT = "# the team's settings\npermissions:\n  mode: default\n  allow:\n    - bash(npm test *) # from the dialog\n    - read_file\n  deny:\n    - bash(rm *)\n";

it("lists every rule with its origin, removes a project rule keeping comments, and says so in one line when the rule is not there", async () => {
  ws = tempWorkspace({ ".orca/config.yaml": PROJECT });
  const file = path.join(ws.dir, ".orca", "config.yaml");
  const listed = await runOrca(["permissions"], { ws });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain(`deny  bash(rm *)  (${file})`);
  expect(listed.stdout).toContain(`allow bash(npm test *)  (${file})`);
  expect(listed.stdout).toContain("mode  mode:default  (mode)");
  expect(listed.stdout).toMatch(/sandboxed commands: (auto|ask)/);

  const removed = await runOrca(["permissions", "remove", "bash(npm test *)"], { ws });
  expect(removed.code, removed.stderr).toBe(0);
  expect(removed.stdout).toContain(`removed bash(npm test *) from ${file}`);
  const text = fs.readFileSync(file, "utf8");
  expect(text).toContain("# the team's settings");
  expect(parse(text).permissions).toEqual({ mode: "default", allow: ["read_file"], deny: ["bash(rm *)"] });

  const again = await runOrca(["permissions", "remove", "bash(npm test *)"], { ws });
  expect(again.code).toBe(1);
  expect(again.stderr.trim().split("\n")).toEqual([`orca permissions: bash(npm test *) is not an allow rule in ${file}`]);
});

it("remove --user edits ~/.config/orca/config.yaml; a symlinked project file is refused in one line", async () => {
  ws = tempWorkspace({ "victim.yaml": "permissions:\n  allow:\n    - read_file\n" });
  const user = path.join(ws.home, ".config", "orca", "config.yaml");
  fs.mkdirSync(path.dirname(user), { recursive: true });
  fs.writeFileSync(user, "permissions:\n  allow:\n    - bash(git log *)\n");
  const removed = await runOrca(["permissions", "remove", "bash(git log *)", "--user"], { ws });
  expect(removed.code, removed.stderr).toBe(0);
  expect(parse(fs.readFileSync(user, "utf8")).permissions.allow).toEqual([]);

  fs.mkdirSync(path.join(ws.dir, ".orca"));
  fs.symlinkSync(path.join(ws.dir, "victim.yaml"), path.join(ws.dir, ".orca", "config.yaml"));
  const refused = await runOrca(["permissions", "remove", "read_file", "--project"], { ws });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/symlink/);
  expect(refused.stderr.trim().split("\n")).toHaveLength(1);
  expect(ws.read("victim.yaml")).toContain("read_file");
});

it("a project rule bash(npm test *) saved by the dialog's writer does not approve `npm test; rm -rf x` headless", async () => {
  ws = tempWorkspace({ "x/marker": "keep\n", "package.json": '{"scripts":{"test":"true"}}\n' });
  addAllowRules(path.join(ws.dir, ".orca", "config.yaml"), ["bash(npm test *)"]);
  expect(await headlessDecisions(ws, ["npm test src", "npm test; rm -rf x"])).toEqual([
    ["allow", "allow: bash(npm test *)"],
    ["deny", "mode:default"],
  ]);
  expect(ws.read("x/marker")).toBe("keep\n");
});

it("a rule you saved applies in a project with its own config, and your deny wins over the project's allow (headless)", async () => {
  ws = tempWorkspace({ ".orca/config.yaml": "permissions:\n  mode: default\n  allow:\n    - bash(touch *)\n", "package.json": '{"scripts":{"test":"true"}}\n' });
  writeUserConfig(ws.home, "permissions:\n  allow:\n    - bash(npm test *)\n  deny:\n    - bash(touch *)\n");
  expect(await headlessDecisions(ws, ["npm test src", "touch hit"])).toEqual([
    ["allow", "allow: bash(npm test *)"],
    ["deny", "deny: bash(touch *)"],
  ]);
  expect(fs.existsSync(path.join(ws.dir, "hit"))).toBe(false);
});

/** A headless run whose scripted model asks for each command in turn: what each permission_decided said, [decision, rule]. */
async function headlessDecisions(ws: TempWorkspace, commands: string[]): Promise<[string | undefined, string | undefined][]> {
  const server = await startScriptedServer([...commands.map((command) => ({ toolCalls: [{ name: "bash", args: { command } }] })), { text: "done" }]);
  try {
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; decision?: string; rule?: string })
      .filter((e) => e.type === "permission_decided")
      .map((d) => [d.decision, d.rule]);
  } finally {
    await server.close();
  }
}

function writeUserConfig(home: string, text: string): string {
  const file = path.join(home, ".config", "orca", "config.yaml");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}
