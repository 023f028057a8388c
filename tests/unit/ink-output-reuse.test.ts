import fc from "fast-check";
import { describe, expect, it } from "vitest";
// Ink's output stage as patched by patches/ink+6.8.0.patch (not part of Ink's public exports).
import Output from "../../node_modules/ink/build/output.js";
import renderBorder from "../../node_modules/ink/build/render-border.js";

const ESC = "\u001B";
const COLUMNS = 40;
const ROWS = 5;
const SHORT = 3;

type Transformer = (line: string, index: number) => string;
interface Clip {
  x1?: number;
  x2?: number;
  y1?: number;
  y2?: number;
}
interface PatchedOutput {
  write(x: number, y: number, text: string, options: { transformers: Transformer[]; node?: object }): void;
  clip(clip: Clip): void;
  unclip(): void;
  get(): { output: string; height: number };
}

const newOutput = (width = COLUMNS, height = ROWS): PatchedOutput => new (Output as unknown as new (o: { width: number; height: number }) => PatchedOutput)({ width, height });

// Pure transforms, as Ink's <Text> makes them (a colour closed over; the line's index used).
const transforms: Transformer[] = [(l) => `${ESC}[31m${l}${ESC}[39m`, (l, i) => (i % 2 === 0 ? `${ESC}[1m${l}${ESC}[22m` : l), (l) => l.toUpperCase()];

const write = fc.record({
  owner: fc.integer({ min: 0, max: 5 }),
  // Few places, so pieces overlap (the cell grid's path) and land past a narrowed screen's edge.
  x: fc.constantFrom(0, 1, 3, 22, 25),
  y: fc.integer({ min: -1, max: ROWS }),
  text: fc.constantFrom("a", "token 12", "東京 x", "two\nlines", `${ESC}[90m│${ESC}[39m\n${ESC}[90m│${ESC}[39m\n`, "", "a\nb\nc\nd\ne\nf", `${ESC}[32mopen`),
  transformers: fc.subarray([0, 1, 2]),
  clip: fc.option(fc.record({ x1: fc.constantFrom(0, 2), x2: fc.constantFrom(10, COLUMNS), y1: fc.constantFrom(0, 1), y2: fc.constantFrom(2, ROWS) }), { nil: undefined }),
});
// A frame: its writes, and the screen width (a resize changes it).
const frame = fc.record({ writes: fc.array(write, { maxLength: 8 }), width: fc.constantFrom(COLUMNS, 20), height: fc.constantFrom(ROWS, SHORT) });
type Frame = ReturnType<typeof frame.generate>["value"];

function draw(frameWrites: Frame, owners: object[] | undefined): string {
  const output = newOutput(frameWrites.width, frameWrites.height);
  // Each owner writes once a frame, as a text node does.
  const seen = new Set<number>();
  for (const w of frameWrites.writes) {
    if (seen.has(w.owner)) continue;
    seen.add(w.owner);
    if (w.clip) output.clip(w.clip);
    // Fresh arrays of the same functions, as renderNodeToOutput builds them every frame.
    const options = { transformers: w.transformers.map((i) => transforms[i]!), ...(owners ? { node: owners[w.owner] } : {}) };
    output.write(w.x, w.y, w.text, options);
    if (w.clip) output.unclip();
  }
  return output.get().output;
}

describe("Ink's output stage (patched): an unchanged write's pieces and an unchanged row's text reused", () => {
  it("draws every frame as the unpatched path draws it from scratch", () => {
    // Each frame is the one before with one thing of one write changed (or nothing): a text node
    // that moved, was re-coloured, re-clipped or re-worded, or the screen resized.
    const edit = fc.record({ index: fc.nat({ max: 7 }), change: fc.oneof(write.map((w) => ({ ...w, owner: undefined })), fc.record({ width: fc.constantFrom(COLUMNS, 20), height: fc.constantFrom(ROWS, SHORT) })) });
    fc.assert(
      fc.property(frame, fc.array(fc.tuple(edit, fc.constantFrom("x", "y", "text", "transformers", "clip", "width", "height", "none")), { minLength: 1, maxLength: 8 }), (first, edits) => {
        const owners = Array.from({ length: 6 }, () => ({}));
        let current = first;
        const frames = [current];
        for (const [{ index, change }, field] of edits) {
          const writes = current.writes.map((w) => ({ ...w }));
          const target = writes[index % Math.max(1, writes.length)];
          let { width, height } = current;
          if (field === "width" && "width" in change) width = change.width;
          else if (field === "height" && "height" in change) height = change.height;
          else if (target && field !== "none" && field in change && !("width" in change)) Object.assign(target, { [field]: (change as Record<string, unknown>)[field] });
          current = { writes, width, height };
          frames.push(current);
        }
        // Without owners nothing is reused: the code the patch bypasses. Drawn first, so the
        // frames with owners follow one another and meet their own last rows.
        const expected = frames.map((f) => draw(f, undefined));
        expect(frames.map((f) => draw(f, owners))).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("hands back the same line objects for an unchanged write, and draws a changed one anew", () => {
    const owner = {};
    const red = transforms[0]!;
    const first = newOutput();
    first.write(2, 1, "hello", { transformers: [red], node: owner });
    expect(first.get().output.split("\n")[1]).toBe(`  ${ESC}[31mhello${ESC}[39m`);
    const again = newOutput();
    again.write(2, 1, "hello", { transformers: [red], node: owner });
    expect(again.get().output.split("\n")[1]).toBe(`  ${ESC}[31mhello${ESC}[39m`);
    const moved = newOutput();
    moved.write(3, 1, "hello", { transformers: [red], node: owner });
    expect(moved.get().output.split("\n")[1]).toBe(`   ${ESC}[31mhello${ESC}[39m`);
    const recoloured = newOutput();
    recoloured.write(3, 1, "hello", { transformers: [transforms[2]!], node: owner });
    expect(recoloured.get().output.split("\n")[1]).toBe("   HELLO");
  });

  it("joins a reused row anew when the screen's width changed (the cell grid drops cells past it)", () => {
    const owners = [{}, {}];
    const frameOf = (width: number, withOwners: boolean): string => {
      const output = newOutput(width);
      // Overlapping pieces past the narrow screen's edge: the cell grid's path, which depends on the width.
      output.write(22, 0, "token 12", { transformers: [], ...(withOwners ? { node: owners[0] } : {}) });
      output.write(25, 0, "a", { transformers: [], ...(withOwners ? { node: owners[1] } : {}) });
      return output.get().output;
    };
    const [wide, narrow] = [frameOf(COLUMNS, false), frameOf(20, false)];
    expect(narrow).not.toBe(wide);
    // Drawn one after the other, so the second frame meets the first one's rows.
    expect(frameOf(COLUMNS, true)).toBe(wide);
    expect(frameOf(20, true)).toBe(narrow);
  });
});

describe("Ink's borders (patched): kept while the style object and the size are the same", () => {
  interface Written {
    x: number;
    y: number;
    text: string;
  }
  const box = (style: Record<string, unknown>, size: { width: number; height: number }) => ({
    style,
    yogaNode: { getComputedWidth: () => size.width, getComputedHeight: () => size.height },
  });
  const bordersOf = (node: unknown, x = 0, y = 0): Written[] => {
    const writes: Written[] = [];
    (renderBorder as unknown as (x: number, y: number, node: unknown, output: unknown) => void)(x, y, node, { write: (wx: number, wy: number, text: string) => writes.push({ x: wx, y: wy, text }) });
    return writes;
  };
  const styles = fc.record({
    borderStyle: fc.constantFrom("round", "single", "bold"),
    borderColor: fc.option(fc.constantFrom("gray", "red", "#ff8800"), { nil: undefined }),
    borderDimColor: fc.option(fc.boolean(), { nil: undefined }),
    borderTop: fc.option(fc.boolean(), { nil: undefined }),
    borderBottom: fc.option(fc.boolean(), { nil: undefined }),
    borderLeft: fc.option(fc.boolean(), { nil: undefined }),
  });
  const sizes = fc.record({ width: fc.integer({ min: 2, max: 30 }), height: fc.integer({ min: 2, max: 12 }) });

  it("writes what a fresh box writes, across style and size changes and moves", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(styles, sizes, fc.nat({ max: 9 }), fc.boolean()), { minLength: 1, maxLength: 8 }), (steps) => {
        const size = { width: 2, height: 2 };
        let style: Record<string, unknown> = { borderStyle: "round" };
        const node = box(style, size);
        for (const [nextStyle, nextSize, x, keepStyle] of steps) {
          // A re-rendered Box gets a new style object; a memoised one keeps its own.
          if (!keepStyle) style = { ...nextStyle };
          node.style = style;
          Object.assign(size, nextSize);
          expect(bordersOf(node, x, 1)).toEqual(bordersOf(box({ ...style }, { ...size }), x, 1));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("what the reuse assumes of orca's UI", () => {
  // A text node's pieces are reused when its text and transform functions are the same as last
  // frame's: that holds only while every transform is pure. Ink's <Text> makes them so; a
  // <Transform> whose function reads anything else (a clock, a counter) would draw stale lines.
  it("no source under src/ui uses Ink's <Transform> or an internal_transform of its own", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const root = join(import.meta.dirname, "../../src/ui");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.filter((f) => /<Transform\b|\bTransform\b.*from "ink"|internal_transform/.test(readFileSync(join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });
});
