import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyRowsUsed, computeLayout, MIN_DIALOG_HEIGHT, MIN_PANE_HEIGHT, type LayoutInput } from "../../src/ui/layout.js";

const inputArb = fc
  .record({
    columns: fc.integer({ min: 60, max: 240 }),
    rows: fc.integer({ min: 20, max: 80 }),
    inputLines: fc.integer({ min: 1, max: 12 }),
    running: fc.array(fc.boolean(), { maxLength: 12 }),
    focusAt: fc.integer({ min: -1, max: 11 }),
    dialog: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
    zoomed: fc.boolean(),
    popupRows: fc.integer({ min: 0, max: 8 }),
  })
  .map((r): LayoutInput => {
    const agents = r.running.map((running, i) => ({ id: `a${i}`, running }));
    const focus = r.focusAt >= 0 && r.focusAt < agents.length ? agents[r.focusAt]!.id : null;
    return { columns: r.columns, rows: r.rows, inputLines: r.inputLines, agents, focus, dialogRows: r.dialog, zoomed: r.zoomed, popupRows: r.popupRows };
  });

describe("computeLayout (property)", () => {
  it("never overlaps: regions add up to rows - 1 or less, panes fit the body and each other, the focused pane and the dialog are whole", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const l = computeLayout(input);
        expect(l.height).toBe(input.rows - 1);
        expect(l.width).toBe(input.columns);
        expect(l.headerHeight + l.bodyHeight + l.dialogHeight + l.popupHeight + l.inputHeight + l.footerHeight).toBeLessThanOrEqual(l.height);
        expect(l.inputHeight).toBeGreaterThanOrEqual(3);
        if (!input.zoomed) expect(bodyRowsUsed(l)).toBeLessThanOrEqual(l.bodyHeight);
        if (input.dialogRows !== undefined) {
          expect(l.dialogHeight).toBeGreaterThanOrEqual(MIN_DIALOG_HEIGHT);
          expect(l.dialogHeight).toBeLessThanOrEqual(Math.max(MIN_DIALOG_HEIGHT, input.dialogRows));
        } else expect(l.dialogHeight).toBe(0);
        for (const p of l.placed) {
          expect(p.height).toBeGreaterThanOrEqual(MIN_PANE_HEIGHT);
          expect(p.left + p.width).toBeLessThanOrEqual(l.width);
          expect(p.top + p.height).toBeLessThanOrEqual(l.bodyHeight);
        }
        for (const a of l.placed)
          for (const b of l.placed) {
            if (a === b) continue;
            const apart = a.left + a.width <= b.left || b.left + b.width <= a.left || a.top + a.height <= b.top || b.top + b.height <= a.top;
            expect(apart).toBe(true);
          }
        // The focused pane is drawn as a whole pane (the coordinator when focus is null).
        expect(l.placed.some((p) => p.id === input.focus)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
