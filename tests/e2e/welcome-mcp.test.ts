/**
 * The welcome screen follows MCP servers as they connect (README: "with their state as they
 * connect"): a real McpManager over a real stdio child that never answers `initialize`, in tmux.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";
import { orcaInTmux, workspace } from "./rig.js";

describe("the welcome screen and MCP servers", () => {
  it("shows a server connecting, then failed when its connect times out", { timeout: 120_000 }, async () => {
    const ws = workspace();
    const home = ws.home;
    fs.mkdirSync(path.join(home, ".config", "orca"), { recursive: true });
    const silent = path.join(ROOT, "tests", "fixtures", "mcp-silent-server.mjs");
    fs.writeFileSync(
      path.join(home, ".config", "orca", "config.yaml"),
      `mcp_servers:\n  slow:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(silent)}]\n    connect_timeout: 10000\n`,
    );
    const term = orcaInTmux("welcome-mcp", ws, ["--base-url", "http://127.0.0.1:8080/v1"], { rows: 30 });
    // The connect timeout leaves a loaded machine ten seconds to draw the first frame.
    await term.waitFor(
      "the welcome screen",
      (s) => {
        expect(s).toContain("workspace");
        expect(s).toMatch(/│MCP\s+slow connecting\s+│/);
      },
      30_000,
    );
    // The failure is said on the welcome's MCP row, or — once its warning opens the conversation —
    // in the coordinator's pane, which then replaces the welcome screen.
    const later = await term.waitFor("the server's failure", (s) => /│MCP\s+slow failed\s+│|⚠ MCP server slow failed: did not finish start-up/.test(s), 60_000);
    expect(later).toMatch(/slow failed/);
    // Left the way a person leaves, so orca ends the server it started.
    term.keys("C-c");
    expect(await term.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s))).toContain("EXIT=0");
  });
});
