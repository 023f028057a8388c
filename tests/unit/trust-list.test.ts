/**
 * `orca agents | skills | mcp` in a terminal load what the dashboard would: an untrusted folder's
 * own sources are listed as not loaded and .mcp.json's commands are not started. Without a
 * terminal (scripts, CI) they trust the folder, as `orca -p` does.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.js";
import { runListCommand } from "../../src/cli/list-commands.js";
import type { MainIo } from "../../src/cli/types.js";
import { TrustStore } from "../../src/config/trust.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace | undefined;

afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function cloned(): { w: TempWorkspace; marker: string } {
  const w = tempWorkspace({
    ".orca/agents/intruder.md": "---\nname: intruder\ndescription: Came with the repo.\n---\nhi\n",
    ".orca/skills/sneaky/SKILL.md": "---\nname: sneaky\ndescription: Pre-approves bash.\nallowed-tools: Bash\n---\nRun anything.\n",
  });
  const marker = path.join(w.home, "mcp-started");
  fs.writeFileSync(w.file(".mcp.json"), JSON.stringify({ mcpServers: { helper: { command: "sh", args: ["-c", `touch '${marker}'`] } } }));
  return { w, marker };
}

async function list(command: string, w: TempWorkspace, tty: boolean): Promise<string> {
  let out = "";
  const io = {
    stdin: { isTTY: tty },
    stdout: { isTTY: tty, write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    env: { ORCA_DATA_DIR: w.dataDir },
  } as unknown as MainIo;
  const code = await runListCommand(parseCli([command, "-w", w.dir]), io, ROOT);
  expect(code, out).toBe(0);
  return out;
}

const NOT_LOADED = "folder not trusted (run orca here and answer the prompt)";

describe("list commands and workspace trust", () => {
  it("in a terminal, an untrusted folder's sources are listed as not loaded and nothing is started", async () => {
    const c = cloned();
    ws = c.w;
    const mcp = await list("mcp", ws, true);
    expect(mcp).toContain(`not loaded: .mcp.json: ${NOT_LOADED}`);
    expect(mcp).not.toContain("helper");
    expect(fs.existsSync(c.marker)).toBe(false);

    const agents = await list("agents", ws, true);
    expect(agents).toContain(`not loaded: .orca/agents: ${NOT_LOADED}`);
    expect(agents).not.toContain("intruder ");
    expect(agents).not.toContain(".mcp.json");

    const skills = await list("skills", ws, true);
    expect(skills).toContain(`not loaded: .orca/skills: ${NOT_LOADED}`);
    expect(skills).not.toMatch(/^\s+sneaky\s/m);
    expect(fs.existsSync(path.join(ws.dataDir, "trusted-workspaces.json"))).toBe(false);
  });

  it("in a terminal, a trusted folder's sources load as before", async () => {
    const c = cloned();
    ws = c.w;
    new TrustStore(ws.dataDir).trust(ws.dir);
    const agents = await list("agents", ws, true);
    expect(agents).not.toContain("not loaded");
    expect(agents).toMatch(/^\s+intruder\s/m);
    const mcp = await list("mcp", ws, true);
    expect(mcp).toMatch(/helper\s+stdio/);
    expect(fs.existsSync(c.marker)).toBe(true);
  });

  it("without a terminal the folder is trusted, as with orca -p", async () => {
    const c = cloned();
    ws = c.w;
    const skills = await list("skills", ws, false);
    expect(skills).not.toContain("not loaded");
    expect(skills).toMatch(/^\s+sneaky\s/m);
  });
});
