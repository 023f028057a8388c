/**
 * With the workspace at the home directory, the sandbox keeps orca's own folders there read-only
 * and pins every folder above them (attack-guarded-dir-parent.test.ts). A symbolic link on the way
 * cannot be pinned: bwrap's mounts follow it, and the link is an entry of a writable folder. A
 * command can remove `~/.cache -> ~/real-cache` (or a dotfiles manager's `~/.config/orca ->
 * ~/dotfiles/orca`) and make a folder of its own in its place, where the next start reads code or
 * settings. orca remembers such links before the first command and puts each back after every
 * command, moving what stood there aside (src/tools/sandbox/protected-links.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it, vi } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { lastToolResult, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { craftPlantedCode, hi } from "../fixtures/planted-code.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/** Runs `command` with the bash tool in a session whose workspace is the home; the run's stderr. */
async function inHome(ws: TempWorkspace, command: string, output: string): Promise<string> {
  const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, cwd: ws.home, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  // The link could be replaced (the sandbox has no way to stop it)…
  expect(lastToolResult(server.requests[1]!)).toContain(output);
  return run.stderr;
}

/** `~/.cache -> ~/real-cache`, and a first run that keeps orca's compiled code through it. */
async function cacheLinkedInHome(ws: TempWorkspace): Promise<{ real: string; link: string }> {
  const real = path.join(ws.home, "real-cache");
  const link = path.join(ws.home, ".cache");
  fs.mkdirSync(real);
  fs.symlinkSync(real, link);
  await hi(ws);
  return { real, link };
}

/** The one thing next to `link` that orca moved aside, and what it holds. */
function movedAside(link: string): string {
  const aside = fs.readdirSync(path.dirname(link)).filter((name) => name.startsWith(`${path.basename(link)}.orca-replaced-`));
  expect(aside).toHaveLength(1);
  return path.join(path.dirname(link), aside[0]!);
}

it("with ~/.cache a link in the home, a command that puts a folder in the link's place plants nothing the next start runs: the link is put back and the user told", async () => {
  const ws = workspace();
  const { real, link } = await cacheLinkedInHome(ws);
  const marker = path.join(ws.dir, "MARKER");
  const evil = path.join(ws.home, "evil.v8");
  craftPlantedCode(evil, marker);
  const plant = "rm ~/.cache && mkdir -p ~/.cache/orca/compile-cache && cp ~/evil.v8 ~/.cache/orca/compile-cache/orca-headless.v8 && echo planted";
  const stderr = await inHome(ws, plant, "planted");
  // …and is back once the command has ended, with what stood there kept aside.
  expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  expect(fs.readlinkSync(link)).toBe(real);
  const aside = movedAside(link);
  expect(fs.readdirSync(path.join(aside, "orca", "compile-cache"))).toEqual(["orca-headless.v8"]);
  expect(stderr).toMatch(new RegExp(`orca: warning: ${link.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: a command replaced this link[^\n]*put it back[^\n]*${aside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  // The next start takes nothing from what the command made.
  const next = await hi(ws);
  expect(next).not.toContain("PLANTED");
  expect(fs.existsSync(marker), "the planted code ran").toBe(false);
}, 180_000);

it("with ~/.config/orca a dotfiles link, a command that makes a folder in its place with a config whose hook runs at start plants nothing the next start runs", async () => {
  const ws = workspace();
  const dotfiles = path.join(ws.home, "dotfiles", "orca");
  const link = path.join(ws.home, ".config", "orca");
  fs.mkdirSync(dotfiles, { recursive: true });
  fs.writeFileSync(path.join(dotfiles, "config.yaml"), "# the user's own\n");
  fs.mkdirSync(path.dirname(link));
  fs.symlinkSync("../dotfiles/orca", link);
  const marker = path.join(ws.dir, "HOOK-RAN");
  const config = ["hooks:", "  SessionStart:", `    - hooks: [{ type: command, command: 'echo ran > ${marker}' }]`, "  UserPromptSubmit:", `    - hooks: [{ type: command, command: 'echo ran > ${marker}' }]`, ""].join("\n");
  fs.writeFileSync(path.join(ws.home, "evil.yaml"), config);
  const plant = "rm ~/.config/orca && mkdir ~/.config/orca && cp ~/evil.yaml ~/.config/orca/config.yaml && echo planted";
  const stderr = await inHome(ws, plant, "planted");
  expect(fs.readlinkSync(link)).toBe("../dotfiles/orca");
  expect(fs.readFileSync(path.join(link, "config.yaml"), "utf8")).toBe("# the user's own\n");
  expect(fs.readFileSync(path.join(movedAside(link), "config.yaml"), "utf8")).toBe(config);
  expect(stderr).toContain(`orca: warning: ${link}: a command replaced this link`);
  await hi(ws);
  expect(fs.existsSync(marker), "the planted hook ran").toBe(false);
}, 180_000);

it("a background shell that swaps ~/.cache again whenever it is a link: each check puts it back, and once the shell is stopped (its end, then the close) the link is left", async () => {
  const ws = workspace();
  const { real, link } = await cacheLinkedInHome(ws);
  const marker = path.join(ws.dir, "MARKER");
  craftPlantedCode(path.join(ws.home, "evil.v8"), marker);
  const swap = "rm ~/.cache && mkdir -p ~/.cache/orca/compile-cache && cp ~/evil.v8 ~/.cache/orca/compile-cache/orca-headless.v8";
  const loop = `while :; do if [ -L ~/.cache ]; then ${swap}; fi; sleep 0.02; done`;
  const replies: ScriptedReply[] = [
    { toolCalls: [{ name: "bash", args: { command: loop, run_in_background: true } }] },
    // Returns once the shell has swapped it: the link is put back when this command ends…
    { toolCalls: [{ name: "bash", args: { command: "while [ -L ~/.cache ]; do sleep 0.02; done; echo swapped" } }] },
    { text: "done" },
  ];
  const server = await scriptedServer(async (request) => {
    const turn = request.index;
    // …and the run ends only once the shell has swapped it again: only the checks when it is stopped are left to put it back.
    if (turn === 2) await vi.waitFor(() => expect(fs.lstatSync(link).isDirectory()).toBe(true), { timeout: 30_000, interval: 10 });
    return replies[turn]!;
  });
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, cwd: ws.home, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  expect(lastToolResult(server.requests[2]!)).toContain("swapped");
  expect(run.stderr).toContain(`orca: warning: ${link}: a command replaced this link`);
  expect(fs.readlinkSync(link)).toBe(real);
  expect(fs.readdirSync(ws.home).filter((name) => name.startsWith(".cache.orca-replaced-")).length).toBeGreaterThanOrEqual(1);
  const next = await hi(ws);
  expect(next).not.toContain("PLANTED");
  expect(fs.existsSync(marker), "the planted code ran").toBe(false);
}, 180_000);
