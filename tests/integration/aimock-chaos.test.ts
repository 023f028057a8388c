import fs from "node:fs";
import path from "node:path";
import { LLMock, type ChaosConfig } from "@copilotkit/aimock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * orca against a mock written by others: @copilotkit/aimock serving the chat-completions
 * protocol in chaos mode, through the real bin. aimock rolls its faults with Math.random and has
 * no seed option; it runs in this process, so Math.random is seeded here and every run of this
 * file sees the same faults (aimock is pinned). Faults: `drop` (a 500), `malformed` (a 200 whose
 * body is `{malformed json: <<<chaos>>>`) and `disconnect` (the socket destroyed before any
 * response).
 */

const ANSWER = "Hello from aimock.";
const MALFORMED = "{malformed json: <<<chaos>>>";

let mock: LLMock | undefined;
const workspaces: TempWorkspace[] = [];

/** mulberry32: a small seeded generator with well-mixed output. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeEach(() => {
  vi.spyOn(Math, "random").mockImplementation(seeded(20261130));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await mock?.stop();
  mock = undefined;
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

async function startMock(chaos: ChaosConfig) {
  mock = new LLMock({ port: 0, logLevel: "silent", chaos });
  mock.onMessage("say hello", { content: ANSWER });
  await mock.start();
  return mock;
}

function workspace(maxRetries: number): TempWorkspace {
  const ws = tempWorkspace();
  workspaces.push(ws);
  fs.mkdirSync(path.join(ws.dir, ".orca"));
  fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), `model:\n  max_retries: ${maxRetries}\n`);
  return ws;
}

type Fault = "drop" | "malformed" | "disconnect" | "ok";

/** What aimock did with each request since `from`, in order. */
function faults(mock: LLMock, from: number): Fault[] {
  return mock.getRequests().slice(from).map((entry) => (entry.response.chaosAction as Fault | undefined) ?? "ok");
}

/** The one stderr line a failed run must print, for the fault the last attempt met. */
function expectNamed(stderr: string, last: Fault, url: string): void {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  const line = lines[0]!;
  expect(line.startsWith("orca: ")).toBe(true);
  switch (last) {
    case "malformed":
      expect(line).toContain(`not an event stream from ${url}`);
      expect(line).toContain(JSON.stringify(MALFORMED));
      break;
    case "drop":
      expect(line).toContain("500 Internal Server Error");
      expect(line).toContain("Chaos: request dropped");
      break;
    case "disconnect":
      expect(line).toMatch(/cannot reach the model|lost mid-response/);
      expect(line).toMatch(/closed|reset|socket|terminated/i);
      break;
    case "ok":
      throw new Error(`run failed although its last request was answered: ${line}`);
  }
}

describe("orca -p against aimock in chaos mode", () => {
  it("every run finishes with the answer, or fails naming what the server sent", { timeout: 180_000 }, async () => {
    const mock = await startMock({ dropRate: 0.25, malformedRate: 0.35, disconnectRate: 0.2 });
    const url = `${mock.url}/v1`;
    const outcomes: Array<{ code: number | null; faults: Fault[] }> = [];
    for (let i = 0; i < 8; i++) {
      const from = mock.getRequests().length;
      const run = await runOrca(["-p", "say hello", "--base-url", url], { ws: workspace(2), timeoutMs: 60_000 });
      const seen = faults(mock, from);
      outcomes.push({ code: run.code, faults: seen });
      expect(seen.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
      expect(seen.length).toBeLessThanOrEqual(3);
      if (run.code === 0) {
        expect(run.stdout.trim()).toBe(ANSWER);
        expect(seen.at(-1)).toBe("ok");
      } else {
        expect(run.code, run.stderr).toBe(1);
        expect(seen).toHaveLength(3);
        expectNamed(run.stderr, seen.at(-1)!, url);
      }
    }
    // The seed makes these certain; they say the faults this test exists for were met.
    const all = outcomes.flatMap((o) => o.faults);
    expect(all).toContain("malformed");
    expect(all).toContain("drop");
    expect(outcomes.some((o) => o.code === 0 && o.faults.includes("malformed"))).toBe(true);
    expect(outcomes.some((o) => o.code === 1)).toBe(true);
  });

  it("malformed bodies only: retried max_retries times, then one line quoting the body", { timeout: 60_000 }, async () => {
    const mock = await startMock({ malformedRate: 1 });
    const url = `${mock.url}/v1`;
    const run = await runOrca(["-p", "say hello", "--base-url", url], { ws: workspace(2), timeoutMs: 50_000 });
    expect(run.code).toBe(1);
    expect(faults(mock, 0)).toEqual(["malformed", "malformed", "malformed"]);
    expect(run.stderr.trim()).toBe(`orca: model request failed: not an event stream from ${url} (after 3 attempts): ${JSON.stringify(MALFORMED)}`);
  });
});
