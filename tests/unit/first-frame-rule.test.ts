/**
 * Which command lines get plain `orca`'s early frame (src/cli/first-frame.ts): only those that
 * open the dashboard straight away — never one that may show the trust prompt, the --resume
 * picker, a "resuming" line or a headless run first. The workspace check
 * (mayHaveProjectSettings) must say "maybe" wherever trust.ts's projectSettings finds a setting.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { paintFirstFrame } from "../../src/cli/first-frame.js";
import { mayHaveProjectSettings } from "../../src/config/project-setting-sources.js";
import { projectSettings } from "../../src/config/trust.js";
import { dismissEarlyFrame, takeEarlyFrame } from "../../src/ui/early-frame-slot.js";
import { FakeIn, FakeOut } from "./fake-terminal.js";

const made: string[] = [];
afterEach(() => {
  dismissEarlyFrame();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A workspace holding `files` ("dir/" makes an empty folder), and a separate HOME. */
function folder(files: Record<string, string> = {}): { ws: string; home: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-first-frame-rule-")));
  made.push(base);
  const ws = path.join(base, "ws");
  const home = path.join(base, "home");
  fs.mkdirSync(ws);
  fs.mkdirSync(home);
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(ws, rel);
    if (rel.endsWith("/")) fs.mkdirSync(file, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
  }
  return { ws, home };
}

/** The frame paintFirstFrame drew for `argv` in `ws` (its text), or null when it drew none. */
async function frameFor(argv: string[], { ws, home }: { ws: string; home: string }): Promise<string | null> {
  const out = new FakeOut(100, 30);
  const input = new FakeIn();
  input.setRawMode = () => {};
  await paintFirstFrame(["-w", ws, ...argv], input as unknown as NodeJS.ReadStream, out as unknown as NodeJS.WriteStream, { HOME: home });
  const frame = takeEarlyFrame(out as unknown as NodeJS.WriteStream);
  frame?.terminal.close();
  return frame ? out.text : null;
}

const SETTINGS: Record<string, string>[] = [
  { ".orca/config.yaml": "model:\n  name: x\n" },
  { ".orca/agents/helper.md": "---\nname: helper\ndescription: d\n---\nbody\n" },
  { ".orca/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n" },
  { ".agents/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n" },
  { ".mcp.json": "{}" },
  { ".orca/commands/c.md": "do it\n" },
  { ".claude/commands/c.md": "do it\n" },
  { ".claude/settings.json": JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }) },
  { ".claude/settings.local.json": JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }) },
  { "AGENTS.md": "be brief\n" },
  { "CLAUDE.md": "be brief\n" },
];

describe("plain orca's early frame: when", () => {
  it("a workspace without project settings: drawn, the header the brand alone (or the model --model names)", async () => {
    const plain = await frameFor(["--base-url", "http://127.0.0.1:9/v1", "a task"], folder({ "src/a.ts": "x\n" }));
    expect(plain).toContain("orca");
    expect(plain).toContain("›");
    expect(plain).not.toContain("orca ·");
    expect(await frameFor(["-m", "named-model"], folder())).toContain("orca · named-model");
  });

  it.each([[["-p", "task"]], [["--print"]], [["--resume"]], [["--resume", "20261202-abc"]], [["--continue"]], [["sessions"]], [["--help"]], [["--no-such-flag"]]])(
    "%j: none (what comes first is not the dashboard, or may not be)",
    async (argv) => {
      expect(await frameFor(argv, folder())).toBeNull();
    },
  );

  it.each(SETTINGS.map((files) => [Object.keys(files)[0]!, files] as const))("a workspace with %s: none (the trust prompt may come first)", async (_name, files) => {
    const f = folder(files);
    expect(projectSettings(f.ws, { home: f.home }).length).toBeGreaterThan(0);
    expect(mayHaveProjectSettings(f.ws, { home: f.home })).toBe(true);
    expect(await frameFor([], f)).toBeNull();
  });

  it("an empty settings folder or hookless Claude settings load nothing, but count: the check reads no file", async () => {
    for (const files of [{ ".orca/agents/": "" }, { ".claude/settings.json": "{}" }] as Record<string, string>[]) {
      const f = folder(files);
      expect(projectSettings(f.ws, { home: f.home })).toEqual([]);
      expect(await frameFor([], f)).toBeNull();
    }
  });

  it("--config naming another file: the workspace's .orca/config.yaml is not read, so not asked about", async () => {
    const f = folder({ ".orca/config.yaml": "model:\n  name: x\n" });
    expect(projectSettings(f.ws, { home: f.home, configFile: "/elsewhere.yaml" })).toEqual([]);
    expect(await frameFor(["--config", "/elsewhere.yaml"], f)).not.toBeNull();
  });
});
