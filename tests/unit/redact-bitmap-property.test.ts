/**
 * The hash bitmap (redact.ts) must redact exactly what the Set of hashes before it did: a bit is
 * shared by many hashes, so it may only add candidate hits (each checked against the windows),
 * never lose one. Random secrets, random lines with pieces of them (plain, JSON-escaped, split by
 * colour codes) at random offsets, compared against the old implementation, seeded so a failure
 * replays.
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/events/redact.js";
import { Redactor as SetRedactor } from "../fixtures/redact-set-reference.js";

/** mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYISH = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
const NOISE = `${KEYISH} ={}[]:,."\\\n\té€😀`;

function randomString(next: () => number, alphabet: string, length: number): string {
  const chars = [...alphabet];
  let s = "";
  for (let i = 0; i < length; i++) s += chars[Math.floor(next() * chars.length)]!;
  return s;
}

/** A piece of `secret`, at least 8 characters, sometimes cut by a colour code. */
function piece(next: () => number, secret: string): string {
  const from = Math.floor(next() * (secret.length - 8));
  const to = from + 8 + Math.floor(next() * (secret.length - from - 8 + 1));
  const part = secret.slice(from, to);
  if (next() < 0.3) {
    const cut = 1 + Math.floor(next() * (part.length - 1));
    return `${part.slice(0, cut)}\u001b[01;31m\u001b[K${part.slice(cut)}`;
  }
  return part;
}

describe("Redactor's hash bitmap", () => {
  it("redacts what the Set of hashes did, on random lines with secrets at random offsets", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = rng(seed);
      const secrets = Array.from({ length: 1 + Math.floor(next() * (seed % 5 === 0 ? 300 : 6)) }, () => randomString(next, next() < 0.8 ? KEYISH : NOISE, 8 + Math.floor(next() * 60)));
      const bitmap = new Redactor();
      const set = new SetRedactor();
      for (const s of secrets) {
        bitmap.add(s);
        set.add(s);
      }
      for (let n = 0; n < 60; n++) {
        let text = "";
        const parts = 1 + Math.floor(next() * 6);
        for (let p = 0; p < parts; p++) {
          text += randomString(next, NOISE, Math.floor(next() * 40));
          const secret = secrets[Math.floor(next() * secrets.length)]!;
          text += next() < 0.5 ? secret : piece(next, secret);
        }
        const line = JSON.stringify({ type: "tool_finished", content: text });
        expect(bitmap.redactJson(line), `seed ${seed} line ${n}`).toBe(set.redactJson(line));
        expect(bitmap.redactJson(text), `seed ${seed} raw ${n}`).toBe(set.redactJson(text));
      }
    }
  });
});
