/**
 * `npm run bench -- tokens`: what it costs to count a megabyte of tool output or prompt in tokens
 * (gpt-4o's o200k tokenizer) and to cut it to the tool budget (8 000 tokens, the default
 * tools.max_output_tokens), on two kinds of text:
 *
 *   single line  a million random acgt characters with no break: one pre-token of 1 MB, the input
 *                that used to take minutes (BPE is quadratic in the length of one pre-token)
 *   prose        1 MB of English prose: the READMEs of the installed packages, not repeated
 *
 * Each run uses text orca has not seen in that form (a new seed, a rotated start), after one
 * warm-up that loads the tokenizer. Target (issue 13): both at most 500 ms.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import { countTokens } from "../src/model/tokens.js";
import { truncateHeadTail } from "../src/tools/truncate.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MB = 1_000_000;
const RUNS = 5;
const BUDGET = 8_000;
const TARGET_MS = 500;

function dna(length: number, seed: number): string {
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out.push("acgt"[(state >>> 16) % 4]!);
  }
  return out.join("");
}

/** About a megabyte of distinct English prose from the READMEs under node_modules. */
function prosePool(): string {
  const parts: string[] = [];
  const dirs = fs.readdirSync(path.join(ROOT, "node_modules")).sort();
  for (const dir of dirs) {
    const scoped = dir.startsWith("@") ? fs.readdirSync(path.join(ROOT, "node_modules", dir)).map((d) => path.join(dir, d)) : [dir];
    for (const pkg of scoped) {
      const file = path.join(ROOT, "node_modules", pkg, "README.md");
      if (!fs.existsSync(file)) continue;
      const text = fs.readFileSync(file, "utf8");
      parts.push(text);
    }
  }
  let pool = parts.join("\n\n");
  while (pool.length < 2 * MB) pool += `\n\n${pool}`;
  return pool;
}

/** The work orca does on one tool output: count it for the context, cut it for the model. */
function countAndCut(text: string): { ms: number; cpuMs: number; tokens: number; kept: number } {
  const counter = bpeTokenCounter();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const tokens = countTokens(text, "gpt-4o");
  const cut = truncateHeadTail(text, BUDGET, counter);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, tokens, kept: cut.text.length };
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

interface Stats {
  min: number;
  median: number;
  max: number;
}

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const load = timed(() => countTokens("warm up the tokenizer", "gpt-4o"));
  const pool = prosePool();
  countAndCut(dna(100_000, 1));
  countAndCut(pool.slice(0, 100_000));

  const single: number[] = [];
  const prose: number[] = [];
  const b64: number[] = [];
  const cpu = { single: [] as number[], prose: [] as number[], b64: [] as number[] };
  let singleInfo = { tokens: 0, kept: 0 };
  let proseInfo = { tokens: 0, kept: 0 };
  for (let k = 0; k < RUNS; k++) {
    const line = dna(MB, 100 + k);
    const r1 = countAndCut(line);
    single.push(r1.ms);
    cpu.single.push(r1.cpuMs);
    singleInfo = r1;
    const offset = Math.floor((k * pool.length) / (2 * RUNS));
    const r2 = countAndCut(pool.slice(offset, offset + MB));
    prose.push(r2.ms);
    cpu.prose.push(r2.cpuMs);
    proseInfo = r2;
    const r3 = countAndCut(crypto.randomBytes(750_000).toString("base64"));
    b64.push(r3.ms);
    cpu.b64.push(r3.cpuMs);
  }
  const s = stats(single);
  const p = stats(prose);

  if (json) {
    const round = (x: number) => Math.round(x * 10) / 10;
    console.log(JSON.stringify({ ms_1mb_single_line: round(s.median), ms_1mb_prose: round(p.median) }));
    return;
  }

  // For scale: the library alone on one pre-token of 20 000 characters (quadratic; 100 000 took ~4.5 s).
  const require = createRequire(import.meta.url);
  const library = require("gpt-tokenizer/encoding/o200k_base") as { countTokens(text: string, o?: { disallowedSpecial?: Set<string> }): number };
  const before = timed(() => library.countTokens(dna(20_000, 9), { disallowedSpecial: new Set() }));
  const big = dna(20 * MB, 5);
  const twenty = timed(() => countTokens(big, "gpt-4o"));

  const row = (label: string, st: Stats, cpuMs: number[], extra: string) => [
    label,
    st.min.toFixed(0),
    st.median.toFixed(0),
    st.max.toFixed(0),
    stats(cpuMs).median.toFixed(0),
    extra,
  ];
  const rows = [
    ["1 MB, count + cut to 8 000 tokens", "min ms", "median ms", "max ms", "cpu ms", ""],
    row("single line (acgt)", s, cpu.single, `${singleInfo.tokens} tokens, ${singleInfo.kept} chars kept`),
    row("prose (package READMEs)", p, cpu.prose, `${proseInfo.tokens} tokens, ${proseInfo.kept} chars kept`),
    row("base64 (one line, unseen)", stats(b64), cpu.b64, ""),
  ];
  console.log(`o200k (gpt-4o); ${RUNS} runs each, new text every run; tokenizer load ${load.toFixed(0)} ms (once, not counted).`);
  console.log("Wall-clock ms; cpu ms (median, the process's user+system time) is what a busy machine cannot inflate.\n");
  console.log(table(rows));
  console.log("");
  console.log(`library alone, one 20 000-character pre-token: ${before.toFixed(0)} ms (quadratic: why pre-tokens are sliced)`);
  console.log(`orca, a 20 MB one-line prompt counted:        ${twenty.toFixed(0)} ms`);
  console.log("");
  for (const [what, ok] of [
    [`1 MB single line within ${TARGET_MS} ms (median)`, s.median <= TARGET_MS],
    [`1 MB prose within ${TARGET_MS} ms (median)`, p.median <= TARGET_MS],
  ] as const) {
    console.log(`${ok ? "met   " : "MISSED"}  ${what}`);
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ").trimEnd()).join("\n");
}
