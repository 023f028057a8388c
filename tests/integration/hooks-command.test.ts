/**
 * `orca hooks` lists what is configured, from where, for which event and what each matches; in a
 * terminal an untrusted folder's own hooks are listed as not loaded.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.js";
import { runListCommand } from "../../src/cli/list-commands.js";
import type { MainIo } from "../../src/cli/types.js";
import { TrustStore } from "../../src/config/trust.js";
import { ROOT, runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

async function hooksCommand(w: TempWorkspace, tty: boolean): Promise<string> {
  let out = "";
  const io = {
    stdin: { isTTY: tty },
    stdout: { isTTY: tty, write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    env: { ORCA_DATA_DIR: w.dataDir, HOME: w.home },
  } as unknown as MainIo;
  const code = await runListCommand(parseCli(["hooks", "-w", w.dir]), io, ROOT);
  expect(code, out).toBe(0);
  return out;
}

function workspace(): TempWorkspace {
  const w = tempWorkspace({
    ".orca/config.yaml": [
      "hooks:",
      "  import_claude: true",
      "  PreToolUse:",
      "    - matcher: Edit|Write",
      "      hooks: [{ type: command, command: ./check.sh, timeout: 5 }]",
      "  Stop:",
      "    - hooks: [{ type: command, command: notify-send done }]",
      "  SubagentStop:",
      "    - matcher: ^ed",
      "      hooks: [{ type: command, command: log-agent }]",
      "",
    ].join("\n"),
    ".claude/settings.json": JSON.stringify({ hooks: { PostToolUse: [{ matcher: "mcp__github__.*", hooks: [{ type: "command", command: "audit" }] }], PostToolBatch: [] } }),
  });
  return w;
}

describe("orca hooks", () => {
  it("lists each hook with its event, what it matches, its command, timeout and source", async () => {
    ws = workspace();
    const out = await hooksCommand(ws, false);
    const config = path.join(ws.dir, ".orca", "config.yaml");
    const settings = path.join(ws.dir, ".claude", "settings.json");
    expect(out).toContain(`config: ${config}`);
    expect(out).toContain("hooks: 4 configured");
    expect(out).toContain("  PreToolUse   (matcher on the tool name, orca's or Claude Code's)");
    expect(out).toContain('    matcher "Edit|Write" → write_file (Write), edit_file (Edit)');
    expect(out).toContain(`      runs ./check.sh · timeout 5 s · from ${config}`);
    expect(out).toContain('    matcher "mcp__github__.*" → MCP tools whose name matches');
    expect(out).toContain(`      runs audit · timeout 60 s · from ${settings}`);
    expect(out).toContain("  Stop   (matcher on nothing: fires at the end of every run)\n    (no matcher) → every occurrence");
    expect(out).toContain('    matcher "^ed" → editor');
    expect(out).toContain(`Claude Code settings (hooks.import_claude: true):\n  ${settings}: imported, 1 hook`);
  });

  it("in a terminal, an untrusted folder's hooks are not loaded, and it says so", async () => {
    ws = workspace();
    const out = await hooksCommand(ws, true);
    expect(out).toContain("not loaded: .orca/config.yaml: folder not trusted");
    expect(out).toContain("not loaded: .claude/settings.json: folder not trusted");
    expect(out).toContain("hooks: none configured");
    new TrustStore(ws.dataDir).trust(ws.dir);
    expect(await hooksCommand(ws, true)).toContain("hooks: 4 configured");
  });

  it("through the bin: the user's own Claude Code hooks, with import_claude off, are listed as not imported", async () => {
    ws = tempWorkspace();
    fs.mkdirSync(path.join(ws.home, ".claude"));
    fs.writeFileSync(path.join(ws.home, ".claude", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }] } }));
    const run = await runOrca(["hooks"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("hooks: none configured");
    expect(run.stdout).toContain("~/.claude/settings.json: not imported (hooks.import_claude is false), 1 hook");
  });
});
