import fs from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { parse } from "yaml";
import { startScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { SLASH_HANDLERS, type CommandContext } from "../../src/ui/slash-commands.js";
import type { DocLine } from "../../src/ui/state/ui.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";

/** /permissions in the dashboard: the config file each rule came from, and a project rule taken out of its file. */

let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;
afterEach(async () => {
  await orchestra?.session.close();
  orchestra = undefined;
  ws?.cleanup();
  ws = undefined;
});

function writeUserConfig(home: string, text: string): string {
  const file = path.join(home, ".config", "orca", "config.yaml");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

it("/permissions names each rule's config file, and `remove RULE --project` takes it out of the file and out of force", async () => {
  ws = tempWorkspace({ ".orca/config.yaml": "# the team's\npermissions:\n  allow:\n    - bash(npm test *)\n" });
  const project = path.join(ws.dir, ".orca", "config.yaml");
  const user = writeUserConfig(ws.home, "permissions:\n  allow:\n    - bash(git log *)\n");
  const server = await startScriptedServer([{ text: "unused" }]);
  try {
    orchestra = await testOrchestra(ws, server.url);
    const session = orchestra.session;
    const rules = session.permissionRules();
    expect(rules).toContainEqual({ kind: "allow", rule: "bash(npm test *)", origin: project, scope: "project" });
    expect(rules).toContainEqual({ kind: "allow", rule: "bash(git log *)", origin: user, scope: "user" });

    const said: string[] = [];
    const opened: DocLine[][] = [];
    const slash = (arg: string) =>
      SLASH_HANDLERS.permissions({ arg, ctx: { session } as unknown as CommandContext, say: (line) => said.push(line), open: (_t, lines) => opened.push(lines), swap: () => undefined });
    slash("");
    expect(JSON.stringify(opened[0])).toContain(`${project} — /permissions remove <rule> --project`);
    slash("remove bash(npm test *) --project");
    expect(said.at(-1)).toBe(`removed bash(npm test *) from ${project}`);
    expect(parse(fs.readFileSync(project, "utf8")).permissions.allow).toEqual([]);
    expect(fs.readFileSync(project, "utf8")).toContain("# the team's");
    expect(session.permissionRules().map((r) => r.rule)).not.toContain("bash(npm test *)");
    slash("remove bash(npm test *) --project");
    expect(said.at(-1)).toBe(`✗ /permissions: bash(npm test *) is not an allow rule in ${project}`);
    // Your own file is untouched by a project removal.
    expect(parse(fs.readFileSync(user, "utf8")).permissions.allow).toEqual(["bash(git log *)"]);
  } finally {
    await server.close();
  }
});
