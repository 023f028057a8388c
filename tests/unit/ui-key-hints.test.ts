import { describe, expect, it } from "vitest";
import { keyHints, queueNote } from "../../src/ui/key-hints.js";

describe("keyHints", () => {
  it("says what the keys do in each state, the dialog first", () => {
    expect(keyHints({ pending: 3, zoomed: true, busy: true })).toBe("2 more requests after this one · Ctrl+C cancel run");
    expect(keyHints({ pending: 2, zoomed: false, busy: true })).toBe("1 more request after this one · Ctrl+C cancel run");
    expect(keyHints({ pending: 1, zoomed: false, busy: true })).toBe("Ctrl+C cancel run");
    expect(keyHints({ pending: 0, zoomed: true, busy: true })).toBe("PgUp/PgDn ↑/↓ scroll · Home/End · Esc back");
    expect(keyHints({ pending: 0, zoomed: false, focused: { name: "explorer", running: true }, busy: true })).toBe(
      "x/Esc stop explorer · Ctrl+B background · Enter/z zoom · Tab next · Ctrl+C cancel run",
    );
    expect(keyHints({ pending: 0, zoomed: false, focused: { name: "explorer-1", running: true, background: true }, busy: true })).toBe(
      "x/Esc stop explorer-1 · Enter/z zoom · Tab next · Ctrl+C cancel run",
    );
    expect(keyHints({ pending: 0, zoomed: false, focused: { name: "explorer", running: false }, busy: false })).toBe(
      "Esc back · Enter/z zoom · Tab next pane · Ctrl+C exit",
    );
    expect(keyHints({ pending: 0, zoomed: false, busy: true })).toBe("Esc cancel run · Tab focus a pane · PgUp scroll · Ctrl+C cancel run");
    expect(keyHints({ pending: 0, zoomed: false, busy: false })).toBe("Enter send · Alt+Enter newline · ↑↓ history · Tab focus a pane · PgUp scroll · Ctrl+C exit");
  });

  it("fits the line shown while a run goes on in 80 columns", () => {
    expect([...keyHints({ pending: 0, zoomed: false, busy: true })].length).toBeLessThanOrEqual(80);
  });

  it("counts queued messages", () => {
    expect(queueNote(0)).toBe("");
    expect(queueNote(1)).toBe("1 message queued · ");
    expect(queueNote(2)).toBe("2 messages queued · ");
  });
});
