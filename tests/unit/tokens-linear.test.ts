import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as libraryO200k, decode as decodeO200k } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { o200k } from "../../src/model/encoders.js";
import type { ChatMessage } from "../../src/model/model.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import { countTokens, estimateRequestTokens, prepareRequestTokens } from "../../src/model/tokens.js";
import { ROOT } from "../fixtures/harness.js";

/**
 * Counting is linear on any input: pre-tokens longer than 256 characters are sliced before BPE,
 * and text past 64 K characters is counted from spread samples. These tests hold the counts to
 * the library's own on normal text, and to within a few per cent where slicing or sampling acts.
 * No test here measures time (bench/tokens.ts does).
 */

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const library = (text: string) => libraryO200k(text, AS_TEXT);

/** A seeded stream of the letters acgt, as a sequencer would print on one line. */
function dna(length: number, seed = 7): string {
  let state = seed;
  const letters = "acgt";
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    // mulberry32: the high bits are well mixed.
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out.push(letters[((t ^ (t >>> 14)) >>> 0) % 4]!);
  }
  return out.join("");
}

/** This repository's own files: prose, TypeScript, YAML, Markdown tables. */
/**
 * Prose and code from pinned dependencies (the lock file fixes them), so the accuracy checks below
 * see the same text on every commit: the repository's own files change under them.
 */
function repositoryText(): string {
  const lib = path.join(ROOT, "node_modules", "typescript", "lib");
  const files = ["node_modules/zod/README.md", "node_modules/yaml/README.md", "node_modules/p-queue/readme.md"];
  for (const name of fs.readdirSync(lib).sort()) if (/^lib\.es20\d\d.*\.d\.ts$/.test(name)) files.push(path.join("node_modules", "typescript", "lib", name));
  files.push("node_modules/typescript/lib/lib.dom.d.ts");
  return files
    .filter((f) => fs.existsSync(path.join(ROOT, f)))
    .map((f) => fs.readFileSync(path.join(ROOT, f), "utf8"))
    .join("\n");
}

describe("linear token counting", () => {
  const repo = repositoryText();

  it("is exactly the library's count on normal text up to 64 K characters", () => {
    expect(repo.length).toBeGreaterThan(300_000);
    for (let start = 0; start + 60_000 <= repo.length; start += 250_000) {
      const text = repo.slice(start, start + 60_000);
      expect(countTokens(text, "gpt-4o")).toBe(library(text));
    }
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").slice(0, 65_000);
    expect(countTokens(readme, "gpt-4o")).toBe(library(readme));
    expect(countTokens(readme.slice(0, 20_000), "gpt-4")).toBe(encodeCl100k(readme.slice(0, 20_000), AS_TEXT).length);
  });

  it("counts long mixed text from samples within 3 % of the library", () => {
    for (const text of [repo.slice(0, 1_000_000), repo.slice(123_457, 423_457)]) {
      const exact = library(text);
      const counted = countTokens(text, "gpt-4o");
      expect(Math.abs(counted / exact - 1)).toBeLessThan(0.03);
    }
  });

  it("slices a long pre-token: within 1 % of the library on 5 000 characters of one letter class", () => {
    for (const text of [dna(5_000), "=".repeat(5_000), " ".repeat(5_000), "ЖжЖж".repeat(1_250)]) {
      const exact = library(text);
      const counted = o200k().countExact(text);
      expect(Math.abs(counted / exact - 1), text.slice(0, 8)).toBeLessThanOrEqual(0.01);
    }
  });

  it("a 1 MB single-line string counts at the rate the library gives its first 10 K characters", () => {
    const line = dna(1_000_000);
    const rate = library(line.slice(0, 10_000)) / 10_000;
    const counted = countTokens(line, "gpt-4o");
    expect(Math.abs(counted / (rate * line.length) - 1)).toBeLessThan(0.03);
    // and the sliced exact count agrees with the sample
    expect(Math.abs(o200k().countExact(line.slice(0, 100_000)) / countTokens(line.slice(0, 100_000), "gpt-4o") - 1)).toBeLessThan(0.03);
  });

  it("encode and decode round-trip across slices, surrogate pairs included", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.constantFrom("😀".repeat(300), "a".repeat(700), " ".repeat(600), dna(900))), {
          maxLength: 6,
        }),
        (parts) => {
          const text = parts.join("");
          const tokens = o200k().encode(text);
          expect(decodeO200k(tokens)).toBe(text);
          expect(tokens.length).toBe(o200k().countExact(text));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("TokenCounter.head and .tail", () => {
  const counter = bpeTokenCounter();

  it("give the longest prefix and suffix within the budget, on any text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "grapheme", maxLength: 30 }), fc.constantFrom("😀".repeat(50), dna(600), "\n")), {
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 200 }),
        (parts, max) => {
          const text = parts.join("");
          const head = counter.head(text, max);
          const tail = counter.tail(text, max);
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          expect(counter.count(head)).toBeLessThanOrEqual(max);
          expect(counter.count(tail)).toBeLessThanOrEqual(max);
          if (counter.count(text) <= max) {
            expect(head).toBe(text);
            expect(tail).toBe(text);
          } else {
            // Nearly the whole budget is used: a re-encoded cut may lose a token or two.
            expect(counter.count(head)).toBeGreaterThanOrEqual(Math.max(0, max - 3));
            expect(counter.count(tail)).toBeGreaterThanOrEqual(Math.max(0, max - 3));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("cut a 1 MB single line to the budget at both ends", () => {
    const line = dna(1_000_000);
    const head = counter.head(line, 4_000);
    const tail = counter.tail(line, 4_000);
    expect(line.startsWith(head)).toBe(true);
    expect(line.endsWith(tail)).toBe(true);
    for (const part of [head, tail]) {
      expect(counter.count(part)).toBeLessThanOrEqual(4_000);
      expect(counter.count(part)).toBeGreaterThan(3_990);
    }
  });
});

describe("prepareRequestTokens", () => {
  const history = (): ChatMessage[] => [
    { role: "system", content: "You are terse." },
    ...Array.from({ length: 6 }, (_, i): ChatMessage => ({ role: "user", content: `${i} ${dna(60_000, i + 1)}` })),
  ];

  it("lets other work run while it counts, and leaves every count cached", async () => {
    const messages = history();
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    await prepareRequestTokens(messages, "gpt-4o");
    expect(ranMeanwhile).toBe(true);
    // Cached: the synchronous estimate agrees with counting each message afresh.
    const fresh = 3 + messages.reduce((n, m) => n + 4 + countTokens(m.content as string, "gpt-4o"), 0);
    expect(estimateRequestTokens(messages, [], "gpt-4o")).toBe(fresh);
  });

  it("reads no message once the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let reads = 0;
    const text = dna(1_000);
    const messages: ChatMessage[] = Array.from({ length: 5 }, () => ({
      role: "user" as const,
      get content() {
        reads++;
        return text;
      },
    }));
    await prepareRequestTokens(messages, "gpt-4o", controller.signal);
    expect(reads).toBe(0);
    await prepareRequestTokens(messages, "gpt-4o");
    expect(reads).toBe(5);
  });
});
