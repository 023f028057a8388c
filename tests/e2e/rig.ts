import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, vi } from "vitest";
import { BIN, ROOT, TEST_KEY, type TempWorkspace } from "../fixtures/harness.js";
import { TmuxTerminal } from "./tmux.js";

export { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * The e2e tests' set-up: terminals, temporary folders, orca in tmux. Each thing is taken away when
 * its test ends (see tests/fixtures/rig.ts for the order).
 */

/** `s` as one shell word. */
export const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The built orca as a shell command: this node, the bin. */
export const ORCA = `${quote(process.execPath)} ${quote(BIN)}`;

/** A tmux terminal, killed when the test ends. */
export function terminal(name: string): TmuxTerminal {
  const t = new TmuxTerminal(name);
  onTestFinished(() => t.kill());
  return t;
}

/** A temporary folder (real path), removed when the test ends. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment orca runs with in `ws` (its HOME, its data dir, the test key) and `extra`, as shell words. */
export function orcaEnv(ws: TempWorkspace, ...extra: string[]): string {
  return [`HOME=${quote(ws.home)}`, `ORCA_DATA_DIR=${quote(ws.dataDir)}`, `OPENAI_API_KEY=${TEST_KEY}`, ...extra].join(" ");
}

export interface OrcaInTmux {
  columns?: number;
  rows?: number;
  /** More `NAME=value` words for orca's environment. */
  env?: string[];
  /** Variables taken out of orca's environment besides CI (with CI set, Ink writes only the final frame). */
  unset?: string[];
}

/**
 * The built orca with `args` in a new terminal (killed when the test ends), in `ws` with its HOME
 * and data dir; the shell then prints orca's exit code (EXIT=n) and stays, so the test can read it.
 */
export function orcaInTmux(name: string, ws: TempWorkspace, args: string[], opts: OrcaInTmux = {}): TmuxTerminal {
  const t = terminal(name);
  t.start(`env ${unsetWords(opts)} ${orcaEnv(ws, ...(opts.env ?? []))} ${ORCA} ${args.map(quote).join(" ")}; echo EXIT=$?; sleep 60`, opts.columns ?? 120, opts.rows ?? 40, ws.dir);
  return t;
}

const HOLD = fileURLToPath(new URL("../fixtures/hold-runtime.mjs", import.meta.url));

/**
 * `orca --base-url <server> …args` in `ws` with a module's load held (tests/fixtures/hold-runtime.mjs) until
 * `release()`: the runtime (dist/bundle/main.js), or the module whose URL holds `hold`. `reached()`
 * waits until the bin is at that load.
 */
export function heldOrca(name: string, ws: TempWorkspace, baseUrl: string, opts: { hold?: string; args?: string[] } = {}): { t: TmuxTerminal; release: () => void; reached: () => Promise<void> } {
  const gate = path.join(ws.home, "release");
  const env = [`NODE_OPTIONS=${quote(`--import=${HOLD}`)}`, `ORCA_TEST_RELEASE=${quote(gate)}`, ...(opts.hold ? [`ORCA_TEST_HOLD=${quote(opts.hold)}`] : [])];
  const t = orcaInTmux(name, ws, ["--base-url", baseUrl, ...(opts.args ?? [])], { env });
  const reached = () => vi.waitFor(() => expect(fs.existsSync(`${gate}.held`), "the bin reached the held load").toBe(true), { timeout: 30_000, interval: 50 });
  return { t, release: () => fs.writeFileSync(gate, ""), reached };
}

/** `orca --demo` from the checkout in a new terminal (killed when the test ends); the shell prints EXIT=n and stays. */
export function demoInTmux(name: string, opts: OrcaInTmux = {}): TmuxTerminal {
  const t = terminal(name);
  t.start(`env ${unsetWords(opts)} ${(opts.env ?? []).join(" ")} node bin/orca.js --demo; echo EXIT=$?; sleep 60`, opts.columns ?? 120, opts.rows ?? 40, ROOT);
  return t;
}

function unsetWords(opts: OrcaInTmux): string {
  return ["CI", ...(opts.unset ?? [])].map((v) => `-u ${v}`).join(" ");
}

/** Waits for the shell's EXIT=n line; returns n. */
export async function exitCode(t: TmuxTerminal): Promise<string> {
  const screen = await t.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
  return /EXIT=(\d+)/.exec(screen)![1]!;
}

/**
 * Types `text`, waits until the input box shows it, then presses Enter. The box's row is the last
 * with a prompt (the transcript's "› …" lines are above it); the text anywhere would not do: "edit"
 * is on screen before it is typed ("editor"), and a sent message stays in the transcript.
 */
export async function send(t: TmuxTerminal, text: string): Promise<void> {
  t.keys("-l", text);
  await t.waitFor(`"${text}" typed`, (s) => (s.split("\n").findLast((l) => l.includes("› ")) ?? "").includes(`› ${text}`));
  t.keys("Enter");
}

/** The first screen line that holds `text` ("" if none). */
export const lineWith = (screen: string, text: string): string => screen.split("\n").find((l) => l.includes(text)) ?? "";

/** The early frame (src/ui/early-frame.tsx): the brand alone in the header (no --model), the input box, nothing of a session. */
export const earlyFrame = (s: string): boolean => s.split("\n")[0]!.includes("orca") && lineWith(s, "│›") !== "" && !s.includes("mode:");

/** The dashboard's input box: what is typed in it ("" when empty). */
export const inputBox = (s: string): string => (s.split("\n").findLast((l) => l.includes("│›")) ?? "").replace(/^.*│›/, "").replace(/│\s*$/, "").trim();

/**
 * Makes the terminal act on what reaches it raw: OSC 52 sets a paste buffer, OSC 2 the title (set
 * to "clean-title" here), so a test can see that nothing did.
 */
export function actOnEscapes(t: TmuxTerminal): void {
  t.tmux("set-option", "-g", "set-clipboard", "on");
  t.tmux("set-option", "-g", "allow-rename", "on");
  t.tmux("select-pane", "-t", "e2e", "-T", "clean-title");
}
