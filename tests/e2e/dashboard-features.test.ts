/**
 * The dashboard a user lives in, in a real terminal at 80×24, 120×40 and 200×60: the built orca
 * in tmux against a scripted model (real HTTP, the openai SDK), driven with keys like a user.
 * Covers: markdown rendered; the permission dialog not answered by keys typed as it opens (they
 * are queued as a message) and nothing overlapping while it is open; a bash row opened to its 300
 * lines and scrolled; the diff under an applied edit; /help, /cost, /mode plan refusing a write.
 * Needs a build (npm test builds); CI is removed from orca's environment (Ink would otherwise
 * write only the final frame).
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { lastMessage, type RecordedRequest, type ScriptedReply } from "../../src/model/scripted.js";
import { orcaInTmux, scriptedServer, workspace } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const usage = { prompt: 1200, completion: 80 };
const MARKDOWN = "Here is the **plan** for it:\n\n```js\nconst answer = 42;\n```\n\nThat is all.";

/** The model: answers by the user's last words; after a tool result, says it is done. */
function script(request: RecordedRequest): ScriptedReply {
  const last = lastMessage(request);
  if (last?.role === "tool") return { text: `Done: ${String(last.content).split("\n")[0]?.slice(0, 40)}`, usage };
  const said = String(last?.content ?? "");
  if (said === "md") return { text: MARKDOWN, usage };
  if (said === "bash") return { toolCalls: [{ name: "bash", args: { command: "seq 1 300" } }], usage };
  if (said === "edit") return { toolCalls: [{ name: "edit_file", args: { path: "src/a.js", old_string: "const b = 1;", new_string: "const b = 2;" } }], usage };
  if (said === "write") return { toolCalls: [{ name: "write_file", args: { path: "new.txt", content: "x" } }], usage };
  return { text: `noted: ${said}`, usage };
}

/** Rows drawn over each other lose borders: every box that opens closes, the header is row 0, once. */
function expectWhole(screen: string, columns: number, rows: number, dialog = true): void {
  const lines = screen.replace(/\n$/, "").split("\n");
  expect(lines.length).toBeLessThanOrEqual(rows);
  for (const l of lines) expect([...l].length).toBeLessThanOrEqual(columns);
  expect(lines[0]).toMatch(/^orca · gpt-4\.1-mini/);
  expect(lines.filter((l) => /^orca · /.test(l))).toHaveLength(1);
  const opens = lines.filter((l) => /^[╭╔]/.test(l)).length;
  const closes = lines.filter((l) => /^[╰╚]/.test(l)).length;
  expect(opens).toBe(closes);
  expect(lines.filter((l) => l.startsWith("╔"))).toHaveLength(dialog ? 1 : 0);
  expect(lines.filter((l) => l.startsWith("╚"))).toHaveLength(dialog ? 1 : 0);
}

/** A session id as the header shows it: date, time, six hex digits. */
const SESSION_ID = /session (\d{8}-\d{6}-[0-9a-f]{6})\b/;

/** The permission dialog on screen through `lastLine` and its bottom border. */
function dialogDrawn(screen: string, lastLine: string): boolean {
  const lines = screen.split("\n");
  const last = lines.findIndex((l) => l.includes(lastLine));
  return screen.includes("Permission:") && last > 0 && lines.slice(last + 1).some((l) => l.startsWith("╚"));
}

async function send(t: TmuxTerminal, text: string): Promise<void> {
  t.keys("-l", text);
  t.keys("Enter");
}

const SIZES: [number, number][] = [
  [80, 24],
  [120, 40],
  [200, 60],
];

describe("the dashboard in tmux", () => {
  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: markdown, a dialog typing cannot answer, a 300-line output, an applied diff, /help, /cost, /mode plan${columns >= 200 ? ", /clear and /resume" : ""}`, { timeout: 120_000 }, async () => {
      const ws = workspace({ "src/a.js": "const a = 1;\nconst b = 1;\n" });
      const server = await scriptedServer(script);
      const t = orcaInTmux(`features-${columns}`, ws, ["-m", "gpt-4.1-mini", "--base-url", server.url], { columns, rows, env: ["ORCA_DIALOG_ARM_MS=1500"], unset: ["NO_COLOR"] });
      await t.waitFor("the dashboard", (s) => s.includes("Ask orca"));

      // Markdown: the bold word without its stars, the code block without its fence.
      await send(t, "md");
      await t.waitFor("the markdown answer", (s) => {
        expect(s).toContain("That is all.");
        expect(s).toContain("Here is the plan for it:");
        expect(s).not.toContain("**plan**");
        expect(s).toContain("│ const answer = 42;");
        expect(s).not.toContain("```");
      });

      // The dialog opens; "ma" + Enter typed at once neither answers it nor is lost: it is queued.
      await send(t, "bash");
      // The dialog drawn to its last line and its bottom border, so the frame is whole on screen.
      const asked = await t.waitFor("the permission dialog", (s) => dialogDrawn(s, "read the request (keys you type now go to the input box)"), 30_000);
      t.keys("m", "a", "Enter");
      // The queue's note is on the last row: the frame is drawn through.
      const queued = await t.waitFor("the queued message", (s) => {
        expect(s).toContain("1 message queued");
        expect(s).toContain("Permission:");
        expect(s).toContain("seq 1 300");
      });
      expectWhole(asked, columns, rows);
      expectWhole(queued, columns, rows);
      const armed = await t.waitFor("the dialog's answer keys", (s) => dialogDrawn(s, "y once"));
      expectWhole(armed, columns, rows);
      t.keys("y");
      await t.waitFor("the bash row", (s) => /✓ bash seq 1 300/.test(s));
      await t.waitFor("the queued message sent", (s) => s.includes("noted: ma"), 30_000);

      // PgUp zooms the coordinator; ↑ selects the bash call; Enter opens its 300 lines; End, PgUp scroll.
      t.keys("PageUp");
      await t.waitFor("the zoomed coordinator", (s) => s.includes("zoom"));
      // In one send-keys, as a fast typist does: Enter must open the call that ↑ just selected.
      t.keys("Up", "Enter");
      // 300 lines and bash's "[exit code: 0]".
      await t.waitFor("the whole output", (s) => {
        expect(s).toMatch(/ of 301\b/);
        expect(s).toMatch(/│1\s/);
      });
      t.keys("End");
      await t.waitFor("the last line", (s) => {
        expect(s).toMatch(/–301 of 301/);
        expect(s).toMatch(/│300\s/);
        expect(s).toContain("[exit code: 0]");
      });
      t.keys("PageUp");
      await t.waitFor("a page up", (s) => / of 301/.test(s) && !/–301 of 301/.test(s));
      t.keys("/");
      await t.waitFor("the search prompt", (s) => s.includes("Enter find"));
      t.keys("-l", "150");
      t.keys("Enter");
      await t.waitFor("the search hit", (s) => s.includes('"150": 1 of 1') && /│150\s/.test(s));
      t.keys("Escape");
      await t.waitFor("the viewer closed", (s) => !/ of 301/.test(s));
      t.keys("Escape");
      await t.waitFor("the zoom left", (s) => s.includes("Ask orca"));

      // An applied edit shows its diff under the row.
      await send(t, "edit");
      await t.waitFor("the edit's dialog", (s) => s.includes("edit_file") && s.includes("y once"), 30_000);
      t.keys("y");
      await t.waitFor("the applied diff", (s) => {
        expect(s).toContain("+const b = 2;");
        expect(s).toContain("Done: Edited");
        expect(s).toContain("-const b = 1;");
      });
      expect(ws.read("src/a.js")).toBe("const a = 1;\nconst b = 2;\n");

      // /help and /cost open in the viewer; Esc closes.
      await send(t, "/help");
      await t.waitFor("the help", (s) => s.includes("Keys — Input box") || s.includes("Commands (type /"));
      // Esc then at once more keys would read as Alt+key: wait for it to land (tmux's escape-time).
      t.keys("Escape");
      await t.waitFor("the help closed", (s) => !s.includes("Commands (type /") && s.includes("Ask orca"));
      await send(t, "/cost");
      await t.waitFor("the cost", (s) => {
        expect(s).toContain("Tokens and cost, per agent");
        expect(s).toMatch(/coordinator\s+\d/);
        expect(s).toMatch(/total\s+[\d.]+k?\s+\d+\s+\d+\s+\$0\.\d+/);
      });
      t.keys("Escape");
      await t.waitFor("the cost closed", (s) => !s.includes("Tokens and cost") && s.includes("Ask orca"));

      // /mode plan: the header says so, and a write is refused.
      await send(t, "/mode plan");
      // The header is the first row; the emptied input box (after /mode plan's Enter) near the last.
      const plan = await t.waitFor("plan mode in the header", (s) => {
        expect(s).toMatch(/^orca · gpt-4\.1-mini · mode: plan/);
        expect(s).toContain("mode: plan — read-only tools only: writes are refused");
        expect(s).toContain("Ask orca");
      });
      expectWhole(plan, columns, rows, false);
      await send(t, "write");
      await t.waitFor("the refused write", (s) => /✗ write_file new\.txt/.test(s) && s.includes("Done: Error"), 30_000);
      expect(fs.existsSync(ws.file("new.txt"))).toBe(false);

      if (columns >= 200) {
        // /clear starts a new session (the header's id changes, the transcript is empty);
        // /resume ID brings the old one back with its conversation.
        // The whole id (a header half drawn would cut it short).
        const header = await t.waitFor("the session's id in the header", (s) => SESSION_ID.test(s.split("\n")[0]!));
        const before = SESSION_ID.exec(header.split("\n")[0]!)![1]!;
        await send(t, "/clear");
        await t.waitFor(
          "a new session",
          (s) => {
            const top = s.split("\n")[0]!;
            expect(SESSION_ID.exec(top)?.[1]).not.toBe(before);
            expect(SESSION_ID.test(top)).toBe(true);
            expect(top).toContain("mode: plan");
            expect(s).not.toContain("That is all.");
          },
          30_000,
        );
        await send(t, `/resume ${before}`);
        // The whole note, not a word of it: a capture can land mid-frame (tmux had read only part of
        // Ink's write), showing the header already changed and the note's line half drawn.
        const back = await t.waitFor(
          "the resumed session",
          (s) => s.split("\n")[0]!.includes(`session ${before}`) && s.includes("— resumed: the conversation above is from the session log —"),
          30_000,
        );
        expect(back).toMatch(/✗ write_file new\.txt/);
      }

      t.keys("C-c");
      await t.waitFor("orca to exit", (s) => /EXIT=0/.test(s));
    });
  }
});
