/**
 * Plain `orca`'s first frame (src/cli/first-frame.ts): drawn before the runtime loads when the
 * dashboard will certainly open straight away — here, a workspace with no project settings — and
 * never when the trust prompt may come first. The runtime's load is held by
 * tests/fixtures/hold-runtime.mjs until the test lets it go, so "before the rest is ready" is a
 * state the test holds; `<gate>.held` says the bin has reached that load (the frame, if any, is drawn).
 */
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { lastMessage, type ScriptedServer } from "../../src/model/scripted.js";
import type { TempWorkspace } from "../fixtures/harness.js";
import { earlyFrame, exitCode, heldOrca as held, lineWith, scriptedServer, workspace } from "./rig.js";

const PROMPT = "do you trust the files in this folder?";

/** Plain `orca` in `ws` against `server`, its runtime held until `release()`. */
const heldOrca = (name: string, ws: TempWorkspace, server: ScriptedServer) => held(name, ws, server.url);

describe("plain orca's first frame", () => {
  it("a workspace without project settings: the frame is up before the runtime loads; keys typed then are sent", { timeout: 60_000 }, async () => {
    const ws = workspace({ "notes.txt": "hello\n" });
    const server = await scriptedServer([{ text: "EARLY-ANSWER" }]);
    const { t, release } = heldOrca("plain-first-frame", ws, server);
    const first = await t.waitFor("the first frame", earlyFrame, 30_000);
    expect(first.split("\n")[0]!.trim()).toMatch(/^╭?─*\s*orca\b/);
    expect(t.display("#{alternate_on}")).toBe("1");
    t.keys("-l", "typed early");
    expect(t.screen()).not.toContain("mode:");
    release();
    await t.waitFor("the dashboard with the keys typed early", (s) => s.includes("mode: default") && lineWith(s, "│›").includes("typed early"), 30_000);
    t.keys("Enter");
    await vi.waitFor(() => expect(server.requests[0]?.finishedAt).toBeTruthy(), { timeout: 30_000, interval: 50 });
    expect(String(lastMessage(server.requests[0]!)?.content ?? "")).toContain("typed early");
    await t.waitFor("the answer", (s) => s.includes("EARLY-ANSWER"), 30_000);
    // Nothing running: one Ctrl+C leaves.
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.display("#{alternate_on}")).toBe("0");
  });

  it("a workspace with project settings: no early frame; the trust prompt is drawn clean", { timeout: 60_000 }, async () => {
    const ws = workspace({ ".orca/config.yaml": "permissions:\n  mode: bypass\n" });
    const server = await scriptedServer([]);
    const { t, release, reached } = heldOrca("plain-first-frame-trust", ws, server);
    await reached();
    expect(t.display("#{alternate_on}")).toBe("0");
    expect(t.screen()).not.toContain("│›");
    release();
    const prompt = await t.waitFor("the trust prompt", (s) => s.includes(PROMPT) && s.includes(".orca/config.yaml"), 30_000);
    expect(prompt).not.toContain("│›");
    t.keys("Escape");
    expect(await exitCode(t)).toBe("0");
    expect(t.display("#{alternate_on}")).toBe("0");
  });

  it("settings that appear after the frame is up: the frame goes before the trust prompt, which is drawn clean", { timeout: 60_000 }, async () => {
    const ws = workspace({ "notes.txt": "hello\n" });
    const server = await scriptedServer([]);
    const { t, release } = heldOrca("plain-first-frame-late-trust", ws, server);
    await t.waitFor("the first frame", earlyFrame, 30_000);
    fs.mkdirSync(ws.file(".orca"));
    fs.writeFileSync(ws.file(".orca/config.yaml"), "permissions:\n  mode: bypass\n");
    release();
    const prompt = await t.waitFor("the trust prompt", (s) => s.includes(PROMPT) && s.includes(".orca/config.yaml"), 30_000);
    // Nothing of the early frame is left around the prompt: its header, its input box.
    expect(prompt).not.toContain("│›");
    expect(prompt.split("\n")[0]).not.toMatch(/^╭?─*\s*orca\s*─*╮?$/);
    t.keys("n");
    const up = await t.waitFor("the dashboard", (s) => s.includes("mode: default") && s.includes("folder not trusted"), 30_000);
    expect(up).not.toContain(PROMPT);
    // The dashboard has the alternate screen (the prompt's leaving it did not take the dashboard's too)…
    expect(t.display("#{alternate_on}")).toBe("1");
    // Nothing running: one Ctrl+C leaves. (CI once sent two here, which a loaded machine read at once: Ink
    // handed them over as the text "\u0003\u0003" and they went into the input box; tests/e2e/startup-keys.test.ts.)
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.display("#{alternate_on}")).toBe("0");
    // …so the normal screen is as it was, bar what orca says on leaving.
    expect(t.screen()).not.toContain("mode: default");
  });
});
