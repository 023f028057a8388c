/**
 * The review flow on `orca --demo` in a real terminal: the built CLI in tmux plays the scenario to
 * its end, then the person opens the review view, sees each editor's diff (src/math.js,
 * CHANGELOG.md), rejects one hunk with a comment (exactly it goes back on disk, and the editor is
 * resumed with the comment), reads /diff, and rewinds the turn (files and conversation). TMPDIR is
 * the test's own, so the demo's workspace and log are found and read there.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ROOT } from "../fixtures/harness.js";
import { demoInTmux, send, tempDir } from "./rig.js";

const ORIGINAL = fs.readFileSync(path.join(ROOT, "demo", "sample-project", "src", "math.js"), "utf8");
const FIXED = ORIGINAL.replace("  return b - a;", "  return a - b;");
const MULTIPLIED = ORIGINAL.replace("/** Subtracts b from a. */", "/** Multiplies a by b. */\nexport function multiply(a, b) {\n  return a * b;\n}\n\n/** Subtracts b from a. */");

/** The demo's session log, as events. */
function logEvents(base: string): Array<Record<string, unknown>> {
  const dir = path.join(base, "data", "sessions");
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".jsonl"))!;
  return fs
    .readFileSync(path.join(dir, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function until(what: string, test: () => boolean, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(() => {
    if (!test()) throw new Error(`timed out waiting for ${what}`);
  }, { timeout: timeoutMs, interval: 50 });
}

describe("review on orca --demo in tmux", () => {
  it("the review view shows each editor's diff; rejecting a hunk with a comment restores exactly it and the editor reads the comment; /diff; /rewind N both", { timeout: 240_000 }, async () => {
    const tmp = tempDir("orca-review-demo-");
    const t = demoInTmux("review-demo", { env: [`TMPDIR=${tmp}`, "ORCA_DEMO_SPEED=3"], unset: ["NO_COLOR"], rows: 60 });
    await t.waitFor("the permission dialog", (s) => s.includes("Permission:") && s.includes("CHANGELOG.md"), 60_000);
    await t.waitFor("the dialog's answer keys", (s) => s.includes("y once"));
    t.keys("y");
    await t.waitFor("the coordinator's report", (s) => s.includes("coordinator done") && s.includes("Ask orca"), 90_000);
    const base = path.join(tmp, fs.readdirSync(tmp).find((n) => n.startsWith("orca-demo-"))!);
    const ws = path.join(base, "tiny-calc");
    const read = (rel: string) => fs.readFileSync(path.join(ws, rel), "utf8");
    expect(read("src/math.js")).toContain("return a - b;");
    expect(read("src/math.js")).toContain("export function multiply(a, b)");

    // Which editor's edit of src/math.js landed second: its diff holds only its own change.
    const edits = logEvents(base).filter((e) => e.type === "file_write" && e.path === "src/math.js").map((e) => e.agentId as string);
    expect(edits.sort()).toEqual(["editor-1", "editor-2"]);
    const order = logEvents(base).filter((e) => e.type === "file_write" && e.path === "src/math.js").map((e) => e.agentId as string);
    const [first, second] = order as [string, string];
    const afterFirst = first === "editor-1" ? FIXED : MULTIPLIED;

    await send(t, "/review");
    await t.waitFor("every editor's change set", (s) => {
      expect(s).toContain("editor-1 [fix subtract] — 1 file");
      expect(s).toContain("editor-2 [add multiply] — 2 files");
      expect(s).toContain("created CHANGELOG.md (1 hunk)");
      expect(s).toContain("+export function multiply(a, b) {");
      expect(s).toContain("+  return a - b;");
      expect(s).toContain("+- Added `multiply(a, b)` to src/math.js.");
      // The first editor's diff runs to the file now: it says the second changed it after.
      expect(s).toContain(`⚠ changed after it by ${second}`);
    });
    t.keys("Escape");
    await t.waitFor("the review closed", (s) => s.includes("Ask orca") && !s.includes("review · "));

    // The second editor alone: its last hunk is its change of src/math.js.
    await send(t, `/review ${second}`);
    await t.waitFor("its change set", (s) => s.includes("review · 1 agent"));
    await t.waitFor("its math.js diff loaded", (s) => /modified src\/math\.js \(1 hunk\)/.test(s));
    t.keys("G");
    await t.waitFor("the cursor on its math.js hunk", (s) => /› +@@ hunk 1:/.test(s) && s.split("\n").findIndex((l) => /› +@@ hunk 1:/.test(l)) > s.split("\n").findIndex((l) => l.includes("modified src/math.js")));
    t.keys("r");
    await t.waitFor("the hunk marked rejected", (s) => /›✗ +@@ hunk 1:/.test(s));
    t.keys("c");
    await t.waitFor("the comment line", (s) => s.includes("comment:") && s.includes("Enter keep"));
    t.keys("-l", "keep it simple");
    await t.waitFor("the comment typed", (s) => s.includes("keep it simple"));
    t.keys("Enter");
    await t.waitFor("the comment kept", (s) => s.includes("✎ keep it simple"));
    t.keys("s");
    await t.waitFor("the send's result", (s) => s.includes(`review of ${second}: restored src/math.js`), 30_000);
    // Exactly that hunk is back: the first editor's change stays.
    expect(read("src/math.js")).toBe(afterFirst);
    expect(read("CHANGELOG.md")).toContain("multiply");
    t.keys("Escape");

    // The editor had ended: the coordinator resumes it with the review, and it answers.
    await t.waitFor("the coordinator passing the review on", (s) => s.includes(`${second} has your review and answered`), 60_000);
    await until("the resumed editor's reading of the comment in the log", () =>
      logEvents(base).some((e) => e.agentId === second && JSON.stringify(e).includes("keep it simple") && (e.type === "user_message" || e.type === "agent_started" || e.type === "model_request")),
    );
    expect(logEvents(base).some((e) => e.type === "assistant_message" && e.agentId === second && String(e.content).includes("I read your review"))).toBe(true);

    await send(t, "/diff");
    await t.waitFor("the session's diff", (s) => {
      expect(s).toContain("The session's change against its start: 2 files");
      expect(s).toContain("created CHANGELOG.md");
    });
    t.keys("Escape");
    await t.waitFor("the diff closed", (s) => !s.includes("The session's change against") && s.includes("Ask orca"));

    // The demo's prompt was checkpoint 1: files and conversation back to before it.
    await send(t, "/rewind 1 both");
    await t.waitFor("the rewind's notice", (s) => /rewound to Fix the subtract bug.*: 2 files restored \(CHANGELOG\.md, src\/math\.js\)/.test(s) && s.includes("conversation rewound to before"));
    expect(read("src/math.js")).toBe(ORIGINAL);
    expect(fs.existsSync(path.join(ws, "CHANGELOG.md"))).toBe(false);
    // The prompt is back in the input box, to edit and send again.
    await t.waitFor("the prompt back in the input box", (s) => s.split("\n").some((l) => l.includes("› Fix the subtract bug") || l.includes("│ Fix the subtract bug")) && !s.includes("Ask orca…"));
    t.keys("C-c");
    await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
  });
});
