/**
 * orca's frame diff on a real terminal: the stretches it writes, the scrolling regions it moves and
 * the erases it sends must leave tmux's screen exactly as a full redraw of each frame would. The
 * unit tests check this on a model terminal; this checks the model against tmux.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { ROOT } from "../fixtures/harness.js";
import { tempDir, terminal } from "./rig.js";

const ESC = "\u001B";
const COLUMNS = 60;
const ROWS = 16;
const PLAYER = fileURLToPath(new URL("../fixtures/frame-player.ts", import.meta.url));

/** A small deterministic generator, so a failure names a frame that can be played again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/**
 * Frames of a dashboard-like screen: a title row, two panes side by side streaming lines (in step
 * or not) between borders, a footer, styles throughout.
 */
function framesOf(seed: number, count: number): string[] {
  const next = random(seed);
  const words = ["token", "ends", "a", `${ESC}[1mbold${ESC}[22m`, `${ESC}[33mline${ESC}[39m`, "·", "…", "→"];
  const lineOf = (n: number) => Array.from({ length: 2 + Math.floor(next() * 4) }, (_, i) => (i === 0 ? String(n) : words[Math.floor(next() * words.length)]!)).join(" ");
  const plain = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, "");
  const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - plain(text).length));
  const left: string[] = [];
  const right: string[] = [];
  const frames: string[] = [];
  for (let f = 0; f < count; f++) {
    const inStep = next() < 0.5;
    const lines = 1 + Math.floor(next() * 3);
    for (let i = 0; i < lines; i++) {
      left.push(lineOf(left.length));
      if (inStep || next() < 0.3) right.push(lineOf(right.length));
    }
    const body = ROWS - 3;
    const rows = [`${ESC}[1morca${ESC}[22m ${ESC}[90m· frame ${f}${ESC}[39m`];
    for (let r = 0; r < body; r++) {
      const l = left[left.length - body + r] ?? "";
      const rr = right[right.length - body + r] ?? "";
      rows.push(`${ESC}[90m│${ESC}[39m${pad(l, 28)}${ESC}[90m││${ESC}[39m${pad(rr, 27)}${ESC}[90m│${ESC}[39m`.trimEnd());
    }
    rows.push(next() < 0.5 ? "footer" : `${ESC}[36mfooter ${f}${ESC}[39m`);
    // Now and then a pane is as wide as the screen (one agent): every row moves together.
    if (next() < 0.2) for (let r = 1; r <= body; r++) rows[r] = pad(left[left.length - body + r - 1] ?? "", COLUMNS - 1);
    frames.push(rows.join("\n"));
  }
  return frames;
}

describe("the frame diff on tmux", () => {
  it("leaves tmux's screen as a full redraw of every frame, scrolls and stretches included", async () => {
    const dir = tempDir("orca-frame-player-");
    const frames = framesOf(7, 60);
    const framesFile = path.join(dir, "frames.json");
    const done = path.join(dir, "done");
    fs.writeFileSync(framesFile, JSON.stringify(frames));
    const term = terminal("frames");
    term.start(`node --import tsx ${JSON.stringify(PLAYER)} ${JSON.stringify(framesFile)} ${JSON.stringify(done)}`, COLUMNS, ROWS, ROOT);
    const expected = (frame: string) =>
      frame
        .split("\n")
        .map((row) => row.replace(/\u001B\[[0-9;]*m/g, "").trimEnd())
        .concat(Array.from({ length: ROWS }, () => ""))
        .slice(0, ROWS)
        .join("\n");
    let scrolls = 0;
    for (let k = 0; k < frames.length; k++) {
      term.keys("Enter");
      scrolls = await playedFrame(done, k);
      const want = expected(frames[k]!);
      await term.waitFor(`frame ${k} as a full redraw draws it:\n${want}`, (screen) => screen.split("\n").slice(0, ROWS).map((l) => l.trimEnd()).join("\n") === want, 5_000);
    }
    // Rows did move up, and the diff scrolled regions for them.
    expect(scrolls).toBeGreaterThan(5);
  });
});

/** Waits until the player has written frame `k`; returns how many frames so far scrolled a region. */
async function playedFrame(file: string, k: number): Promise<number> {
  return vi.waitFor(
    () => {
      const [frame, scrolls] = (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "").split(" ");
      if (frame !== String(k)) throw new Error(`the player did not reach frame ${k}`);
      return Number(scrolls);
    },
    { timeout: 10_000, interval: 10 },
  );
}
