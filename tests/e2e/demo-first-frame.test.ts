/**
 * `orca --demo`'s first frame is drawn before the rest of orca loads (src/cli/first-frame.ts).
 * The load of the runtime is held by tests/fixtures/hold-runtime.mjs until the test lets it go,
 * so "before the rest is ready" is a state the test holds, not a race it hopes to win: what the
 * user sees then, what they type then, and how orca ends from there.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";
import { lineWith, quote, tempDir, terminal } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const HOLD = fileURLToPath(new URL("../fixtures/hold-runtime.mjs", import.meta.url));
const HEADER = "SCRIPTED DEMO";

/** `orca --demo` with `args`, its runtime held until `release()`; the shell prints EXIT=n and stays. */
function heldDemo(name: string, args: string[] = []): { t: TmuxTerminal; release: () => void; tmp: string } {
  const tmp = tempDir("orca-first-frame-");
  const gate = path.join(tmp, "release");
  const t = terminal(name);
  const env = [`NODE_OPTIONS=${quote(`--import=${HOLD}`)}`, `ORCA_TEST_RELEASE=${quote(gate)}`, `TMPDIR=${quote(tmp)}`, "ORCA_DEMO_SPEED=0.2"];
  t.start(`env -u CI ${env.join(" ")} node bin/orca.js --demo ${args.map(quote).join(" ")}; echo EXIT=$?; sleep 60`, 120, 40, ROOT);
  return { t, tmp, release: () => fs.writeFileSync(gate, "") };
}

/** The first frame: the header with what the command line says, nothing yet of the session (its mode, its clock). */
const firstFrame = (s: string): boolean => s.includes(HEADER) && s.includes("orca-demo");

describe("orca --demo's first frame", () => {
  it("is on screen before the runtime loads; keys typed then reach the dashboard's input box", { timeout: 60_000 }, async () => {
    const { t, release } = heldDemo("first-frame-keys");
    const first = await t.waitFor("the first frame", firstFrame, 30_000);
    expect(first.split("\n")[0]).toContain(HEADER);
    expect(first).not.toContain("mode:");
    // The input box is drawn where the dashboard's will be: the frame's last rows.
    expect(lineWith(first, "│›")).not.toBe("");
    expect(t.display("#{alternate_on}")).toBe("1");
    t.keys("-l", "typed early");
    // Still held: the keys wait in the terminal's input for the dashboard.
    expect(t.screen()).not.toContain("mode:");
    release();
    const up = await t.waitFor("the dashboard with the keys typed early", (s) => s.includes("mode: default") && lineWith(s, "│›").includes("typed early"), 30_000);
    expect(up.split("\n")[0]).toContain(HEADER);
    t.keys("C-c");
    t.keys("C-c");
    await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
    expect(t.display("#{alternate_on}")).toBe("0");
  });

  // SIGINT: kill -INT, a supervisor (raw mode makes Ctrl+C a key); Node's default action would run no exit handler.
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)("%s while the runtime loads: the terminal is restored and orca exits %i", { timeout: 60_000 }, async (signal, code) => {
    const { t, tmp, release } = heldDemo(`first-frame-${signal.toLowerCase()}`);
    await t.waitFor("the first frame", firstFrame, 30_000);
    // The shell's child is orca's node (env execs it).
    const shell = t.display("#{pane_pid}");
    const orca = Number(fs.readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/)[0]);
    process.kill(orca, signal);
    // Node 22 and later wait for a loader hook with the main thread blocked, as loading a chunk
    // blocks it: the signal is handled once the load goes on (Node 20 handles it at once).
    release();
    const screen = await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
    expect(screen).toContain(`EXIT=${code}`);
    expect(screen).not.toContain("Terminated");
    expect(screen).not.toContain(HEADER);
    expect(t.display("#{alternate_on}")).toBe("0");
    expect(t.display("#{cursor_flag}")).toBe("1");
    expect(fs.readdirSync(tmp).filter((n) => n.startsWith("orca-demo-"))).toEqual([]);
  });

  it("a command line refused once the frame is up: the frame goes and the error is on the normal screen", { timeout: 60_000 }, async () => {
    const { t, release } = heldDemo("first-frame-refused", ["--max-steps", "many"]);
    await t.waitFor("the first frame", firstFrame, 30_000);
    release();
    const screen = await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
    expect(screen).toContain("EXIT=2");
    expect(lineWith(screen, "orca: --max-steps")).toContain("many");
    expect(screen).not.toContain(HEADER);
    expect(t.display("#{alternate_on}")).toBe("0");
  });
});
