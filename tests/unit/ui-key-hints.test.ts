import { describe, expect, it } from "vitest";
import { fitFields } from "../../src/ui/fit.js";
import { keyHints, queueNote } from "../../src/ui/key-hints.js";
import { DEFAULT_KEYMAP, resolveKeymap } from "../../src/ui/keymap.js";

const line = (s: Parameters<typeof keyHints>[0], width = 400, keymap = DEFAULT_KEYMAP): string =>
  fitFields(keyHints(s, keymap), width)
    .map((f) => f.text)
    .join(" · ");

describe("keyHints", () => {
  it("says what the keys do in each state, the dialog first", () => {
    expect(line({ pending: 3, zoomed: true, busy: true })).toBe("2 more requests after this one · Ctrl+C cancel run");
    expect(line({ pending: 2, zoomed: false, busy: true })).toBe("1 more request after this one · Ctrl+C cancel run");
    expect(line({ pending: 1, zoomed: false, busy: true })).toBe("Ctrl+C cancel run");
    expect(line({ pending: 0, zoomed: true, busy: true })).toBe("↑ select · Enter open · PgUp scroll · Esc/q/z back · Ctrl+C cancel run");
    expect(line({ pending: 0, zoomed: false, focused: { name: "explorer", running: true }, busy: true })).toBe(
      "x/Esc stop explorer · Ctrl+B background · ↑ select · Enter/z zoom · Tab next pane · Ctrl+C cancel run",
    );
    expect(line({ pending: 0, zoomed: false, focused: { name: "explorer-1", running: true, background: true }, busy: true })).toBe(
      "x/Esc stop explorer-1 · ↑ select · Enter/z zoom · Tab next pane · Ctrl+C cancel run",
    );
    expect(line({ pending: 0, zoomed: false, focused: { name: "explorer", running: false }, selected: true, busy: false })).toBe(
      "Esc back · ↑ select · Enter open · Tab next pane · Ctrl+C exit",
    );
    expect(line({ pending: 0, zoomed: false, busy: true })).toBe("Esc cancel run · Tab focus a pane · Shift+Tab mode · PgUp scroll · ? help · Ctrl+C cancel run");
    expect(line({ pending: 0, zoomed: false, busy: false })).toBe(
      "Enter send · Alt+Enter/Ctrl+J newline · ↑ history · Tab focus a pane · Shift+Tab mode · / commands · ? help · Ctrl+C exit",
    );
  });

  it("drops whole hints, never cutting one, and keeps Ctrl+C and help at 80 columns", () => {
    const idle = line({ pending: 0, zoomed: false, busy: false }, 80);
    expect([...idle].length).toBeLessThanOrEqual(80);
    expect(idle).toContain("Ctrl+C exit");
    expect(idle).toContain("? help");
    expect(idle.endsWith("Ctrl+C exit")).toBe(true);
  });

  it("follows the keymap: a rebound action shows its new key", () => {
    const { keymap } = resolveKeymap({ cycle_mode: "ctrl+t" });
    expect(line({ pending: 0, zoomed: false, busy: true }, 400, keymap)).toContain("Ctrl+T mode");
  });

  it("counts queued messages", () => {
    expect(queueNote(0)).toBe("");
    expect(queueNote(1)).toBe("1 message queued · ");
    expect(queueNote(2)).toBe("2 messages queued · ");
  });
});
