/**
 * Workspace trust in a real terminal: a folder that ships `.orca/config.yaml` (bypass mode, its own
 * model) and a `.mcp.json` (a command that leaves a marker file when it runs). The prompt shows
 * both before anything loads; `n` opens the dashboard without them, `y` remembers the folder so
 * the next run does not ask, Esc leaves with exit 0 and nothing written. Needs a build
 * (`npm run build`); CI is removed from orca's environment because with CI set Ink writes only
 * the final frame.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TempWorkspace } from "../fixtures/harness.js";
import { exitCode, orcaInTmux, workspace } from "./rig.js";

const PROMPT = "do you trust the files in this folder?";
const DASHBOARD = "Ask orca";

function cloned(): { w: TempWorkspace; marker: string; trustFile: string } {
  const w = workspace({ ".orca/config.yaml": "model:\n  name: project-model\npermissions:\n  mode: bypass\n" });
  const marker = path.join(w.home, "mcp-started");
  fs.writeFileSync(w.file(".mcp.json"), JSON.stringify({ mcpServers: { helper: { command: "sh", args: ["-c", `touch ${marker}`] } } }));
  return { w, marker, trustFile: path.join(w.dataDir, "trusted-workspaces.json") };
}

/** orca in tmux with the test's HOME and data dir; the shell prints the exit code and stays. */
const startOrca = (name: string, w: TempWorkspace) => orcaInTmux(name, w, ["--base-url", "http://127.0.0.1:59/v1"], { rows: 36 });

describe("workspace trust in tmux", () => {
  it("the prompt shows the project settings; n opens the dashboard without them and says so", { timeout: 60_000 }, async () => {
    const c = cloned();
    const t = startOrca("no", c.w);
    await t.waitFor("the trust prompt", (s) => {
      expect(s).toContain(PROMPT);
      expect(s).toContain("Esc quit");
      expect(s).toContain(".orca/config.yaml");
      expect(s).toContain("permissions.mode: bypass");
      expect(s).toContain(".mcp.json");
      expect(s).toContain(`helper: runs sh -c touch ${c.marker}`);
    });
    expect(t.display("#{alternate_on}")).toBe("1");
    // Asking loads nothing: no server has run yet.
    expect(fs.existsSync(c.marker)).toBe(false);

    t.keys("n");
    await t.waitFor("the dashboard", (s) => {
      expect(s).toContain(DASHBOARD);
      expect(s).toContain("folder not trusted");
      expect(s).not.toContain(PROMPT);
      expect(s).toContain("project settings not loaded: .orca/config.yaml, .mcp.json");
      expect(s.split("\n")[0]).toContain("orca · ");
      expect(s.split("\n")[0]).not.toContain("project-model");
    });
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.display("#{alternate_on}")).toBe("0");
    expect(t.screen()).toContain("orca: warning: folder not trusted: project settings not loaded: .orca/config.yaml, .mcp.json");
    expect(fs.existsSync(c.marker)).toBe(false);
    expect(fs.existsSync(c.trustFile)).toBe(false);
  });

  it("y loads them and remembers the folder: the next run does not ask", { timeout: 60_000 }, async () => {
    const c = cloned();
    const ws = c.w;
    let term = startOrca("yes", ws);
    await term.waitFor("the trust prompt", (s) => s.includes(PROMPT));
    term.keys("y");
    await term.waitFor("the dashboard", (s) => {
      expect(s).toContain(DASHBOARD);
      expect(s.split("\n")[0]).toContain("project-model");
      expect(s).not.toContain("folder not trusted");
    });
    term.keys("C-c");
    expect(await exitCode(term)).toBe("0");
    expect(JSON.parse(fs.readFileSync(c.trustFile, "utf8"))).toEqual({ trusted: [ws.dir] });
    // The .mcp.json server was started: the settings were loaded.
    expect(fs.existsSync(c.marker)).toBe(true);
    term.kill();

    term = startOrca("again", ws);
    await term.waitFor("the dashboard", (s) => {
      expect(s).toContain(DASHBOARD);
      expect(s).not.toContain(PROMPT);
      expect(s.split("\n")[0]).toContain("project-model");
    });
    term.keys("C-c");
    expect(await exitCode(term)).toBe("0");
  });

  it("Esc quits with exit 0 and creates nothing", { timeout: 60_000 }, async () => {
    const c = cloned();
    const ws = c.w;
    const term = startOrca("esc", ws);
    await term.waitFor("the trust prompt", (s) => s.includes(PROMPT));
    term.keys("Escape");
    expect(await exitCode(term)).toBe("0");
    expect(term.display("#{alternate_on}")).toBe("0");
    expect(term.screen()).not.toContain("orca:");
    expect(fs.existsSync(ws.dataDir)).toBe(false);
    expect(fs.existsSync(c.marker)).toBe(false);
  });
});
