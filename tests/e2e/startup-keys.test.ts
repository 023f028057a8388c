/**
 * Keys typed while orca starts reach the dashboard in order, and a Ctrl+C among them does what the
 * dashboard says it does (nothing running: orca leaves, exit 0). What a start-up passes on: the
 * early first frame's keys (nothing reads them until the dashboard does, so they come in one read),
 * the keys typed with the trust prompt's answer (one read: `tmux send-keys n h i` writes them at
 * once, as a fast typist on a loaded machine does), and the keys typed while the session starts
 * after the prompt or the --resume picker (held there by tests/fixtures/hold-runtime.mjs on the MCP
 * SDK's load).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { earlyFrame, exitCode, heldOrca, inputBox, orcaInTmux, scriptedServer, workspace } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const PROMPT = "do you trust the files in this folder?";
const SETTINGS = { ".orca/config.yaml": "permissions:\n  mode: bypass\n" };
const dashboard = (s: string): boolean => s.includes("mode: ") && !s.includes(PROMPT);

/** orca has left by itself (no key sent after the ones under test): exit 0, the terminal given back. */
async function leftAtOnce(t: TmuxTerminal): Promise<void> {
  expect(await exitCode(t)).toBe("0");
  expect(t.display("#{alternate_on}")).toBe("0");
}

/** orca in a plain workspace, its runtime held with the early first frame on screen. */
async function heldAtEarlyFrame(name: string): Promise<{ t: TmuxTerminal; release: () => void }> {
  const { t, release } = heldOrca(name, workspace({ "notes.txt": "hello\n" }), (await scriptedServer([])).url);
  await t.waitFor("the first frame", earlyFrame, 30_000);
  return { t, release };
}

describe("keys typed while orca starts", () => {
  it("early frame → dashboard: text, Backspace and more text reach the input box in order", { timeout: 60_000 }, async () => {
    const { t, release } = await heldAtEarlyFrame("keys-early-text");
    t.keys("-l", "typo");
    t.keys("BSpace");
    t.keys("-l", "ed");
    release();
    await t.waitFor("the dashboard with the keys typed early", (s) => dashboard(s) && inputBox(s) === "typed", 30_000);
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
  });

  it("early frame → dashboard: a Ctrl+C typed after text is the dashboard's Ctrl+C (idle: orca leaves)", { timeout: 60_000 }, async () => {
    const { t, release } = await heldAtEarlyFrame("keys-early-ctrl-c");
    t.keys("-l", "hello");
    t.keys("C-c");
    release();
    await leftAtOnce(t);
  });

  it("trust prompt → dashboard: keys typed with the answer reach the input box in order", { timeout: 60_000 }, async () => {
    const ws = workspace(SETTINGS);
    const t = orcaInTmux("keys-trust-text", ws, ["--base-url", (await scriptedServer([])).url]);
    await t.waitFor("the trust prompt", (s) => s.includes(PROMPT), 30_000);
    t.keys("n", "h", "i", "X", "BSpace", "!");
    await t.waitFor("the dashboard with the keys typed after n", (s) => dashboard(s) && s.includes("folder not trusted") && inputBox(s) === "hi!", 30_000);
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
  });

  it("trust prompt → dashboard: a Ctrl+C typed with the answer is the dashboard's (idle: orca leaves)", { timeout: 60_000 }, async () => {
    const ws = workspace(SETTINGS);
    const t = orcaInTmux("keys-trust-ctrl-c", ws, ["--base-url", (await scriptedServer([])).url]);
    await t.waitFor("the trust prompt", (s) => s.includes(PROMPT), 30_000);
    t.keys("n", "C-c");
    await leftAtOnce(t);
    expect(t.screen()).not.toContain(PROMPT);
  });

  // The MCP server is named in the project's settings: answering o loads them, and the session's start loads the MCP SDK.
  const withServer = { ".orca/config.yaml": `mcp_servers:\n  idle:\n    command: ${JSON.stringify(process.execPath)}\n    args: ["-e", "setInterval(() => {}, 1000)"]\n` };

  it("trust prompt → dashboard: text typed while the session starts is the dashboard's, never echoed on the normal screen", { timeout: 60_000 }, async () => {
    const ws = workspace(withServer);
    const { t, release, reached } = heldOrca("keys-trust-start-text", ws, (await scriptedServer([])).url, { hold: "@modelcontextprotocol/sdk/" });
    await t.waitFor("the trust prompt", (s) => s.includes(PROMPT), 30_000);
    t.keys("o");
    await reached();
    t.keys("-l", "typed-meanwhile");
    release();
    await t.waitFor("the dashboard with the text typed meanwhile", (s) => dashboard(s) && inputBox(s) === "typed-meanwhile", 30_000);
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.screen()).not.toContain("typed-meanwhile");
  });

  it("trust prompt → dashboard: a Ctrl+C typed while the session starts is the dashboard's (idle: orca leaves, 0)", { timeout: 60_000 }, async () => {
    const ws = workspace(withServer);
    const { t, release, reached } = heldOrca("keys-trust-start-ctrl-c", ws, (await scriptedServer([])).url, { hold: "@modelcontextprotocol/sdk/" });
    await t.waitFor("the trust prompt", (s) => s.includes(PROMPT), 30_000);
    t.keys("o");
    await reached();
    t.keys("C-c");
    release();
    await leftAtOnce(t);
  });

  it("--resume picker → dashboard: text typed while the resumed session starts is the dashboard's, never echoed", { timeout: 90_000 }, async () => {
    const ws = workspace();
    const made = await runOrca(["-p", "first: a task", "--base-url", (await scriptedServer([{ text: "FIRST-DONE" }])).url, "--yes"], { ws });
    expect(made.code).toBe(0);
    // Your own config names the MCP server (no trust prompt): the resumed session's start loads the MCP SDK.
    fs.mkdirSync(path.join(ws.home, ".config/orca"), { recursive: true });
    fs.writeFileSync(path.join(ws.home, ".config/orca/config.yaml"), withServer[".orca/config.yaml"]);
    const { t, release, reached } = heldOrca("keys-picker-start", ws, (await scriptedServer([])).url, { hold: "@modelcontextprotocol/sdk/", args: ["--resume"] });
    await t.waitFor("the picker", (s) => s.includes("resume a session") && s.includes("first: a task"), 30_000);
    t.keys("Enter");
    await reached();
    t.keys("-l", "typed-meanwhile");
    release();
    await t.waitFor("the resumed dashboard with the text typed meanwhile", (s) => dashboard(s) && s.includes("FIRST-DONE") && inputBox(s) === "typed-meanwhile", 30_000);
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.screen()).not.toContain("typed-meanwhile");
  });
});
