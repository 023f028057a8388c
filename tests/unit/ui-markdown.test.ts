import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { initialState, reduce } from "../../src/ui/state/reducer.js";
import type { DashboardState } from "../../src/ui/state/types.js";

function run(events: EventInput[]): DashboardState {
  let s = initialState("root");
  let ts = 1;
  for (const e of events) s = reduce(s, { ...e, ts: ts++, sessionId: "s" } as OrcaEvent);
  return s;
}

const view = (s: DashboardState) => s.agents.root!.entries.map((e) => `${e.kind}:${e.kind === "tool" ? e.name : e.text}`);

const line = fc.oneof(
  fc.constantFrom("", "# Title", "## Sub", "- item", "1. first", "```js", "```", "~~~", "| a | b |", "|---|---|", "> quote"),
  fc.stringMatching(/^[a-z*`_ ]{1,20}$/),
);

describe("markdown blocks while streaming", () => {
  it("streamed in any pieces, a message settles into the same blocks as when it arrives whole", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 15 }), { minLength: 1, maxLength: 40 }), (lines, cuts) => {
        const text = lines.join("\n");
        const whole = run([{ type: "assistant_message", agentId: "root", content: text, toolCalls: [] }]);
        const deltas: EventInput[] = [];
        let at = 0;
        for (let i = 0; at < text.length; i++) {
          const n = cuts[i % cuts.length]!;
          deltas.push({ type: "text_delta", agentId: "root", text: text.slice(at, at + n) });
          at += n;
        }
        const streamed = run([...deltas, { type: "assistant_message", agentId: "root", content: text, toolCalls: [] }]);
        if (!text.trim()) return;
        expect(view(streamed)).toEqual(view(whole));
      }),
      { numRuns: 500 },
    );
  });

  it("settles a paragraph at its blank line while the next one streams; a fence only when it closes", () => {
    const s = run([
      { type: "text_delta", agentId: "root", text: "First **para**.\n\n```js\nconst a" },
    ]);
    expect(view(s)).toEqual(["md:First **para**.", "text:", "text:```js", "text:const a"]);
    const closed = reduce(s, { type: "text_delta", agentId: "root", text: " = 1;\n```\nnext", ts: 9, sessionId: "s" });
    expect(view(closed)).toEqual(["md:First **para**.", "text:", "md:```js\nconst a = 1;\n```", "text:next"]);
  });

  it("renders every row within the width, nothing of the source's markup left", () => {
    const src = "## Results\n\n| name | value |\n|---|---:|\n| alpha | 1 |\n| beta | 22 |\n\n1. **one** [docs](https://example.com)\n2. `two`\n\n> quoted *text*";
    for (const width of [20, 40, 80]) {
      const rows = renderMarkdown(src, width, { hyperlinks: false });
      for (const r of rows) expect(r.replace(/\u001B\[[0-9;]*m/g, "").length).toBeLessThanOrEqual(width);
      const plain = rows.join("\n").replace(/\u001B\[[0-9;]*m/g, "");
      expect(plain).toContain("Results");
      expect(plain).not.toContain("**");
      expect(plain).not.toContain("##");
      expect(plain).toContain("alpha");
      if (width === 80) expect(plain).toContain("docs (https://example.com)");
    }
    const linked = renderMarkdown("[docs](https://example.com)", 40, { hyperlinks: true }).join("");
    expect(linked).toContain("\u001B]8;;https://example.com\u0007");
  });
});
