import { describe, expect, it } from "vitest";
import { costOf, priceFor } from "../../src/model/pricing.js";
import type { RecordedRequest } from "../../src/model/scripted.js";
import { agentOf, perAgent, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * OpenAI caches a prompt's longest previously seen prefix by itself; orca's part is to keep that
 * prefix byte-stable from step to step — tools and system prompt never reordered or re-rendered,
 * the history only appended to — and to bill the cached tokens it reports at the cached rate.
 */

describe("OpenAI prompt caching", () => {
  it("each step's request starts with the previous one byte for byte, for the coordinator and its sub-agents", async () => {
    const usage = { prompt: 2_000, completion: 100, cached: 1_500 };
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [{ name: "list_dir", args: { path: "." } }, { name: "glob", args: { pattern: "*.txt" } }], usage },
          { toolCalls: [{ name: "delegate", args: { agent: "explorer", task: "read a.txt" } }], usage },
          { toolCalls: [{ name: "read_file", args: { path: "b.txt" } }], usage },
          { text: "done", usage },
        ],
        "explorer-1": [{ toolCalls: [{ name: "read_file", args: { path: "a.txt" } }], usage }, { toolCalls: [{ name: "grep", args: { pattern: "A" } }], usage }, { text: "A", usage }],
      }),
    );
    const ws = workspace({ "a.txt": "A\n", "b.txt": "B\n" });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "-m", "gpt-4.1-mini", "--output-format", "json"], { ws });
    expect(run.code, run.stderr).toBe(0);

    for (const agent of ["coordinator", "explorer-1"]) {
      const requests = server.requests.filter((r) => agentOf(r) === agent);
      expect(requests.length).toBeGreaterThan(2);
      for (let i = 1; i < requests.length; i++) expectPrefix(requests[i - 1]!, requests[i]!);
    }

    // Seven requests, each 1,500 of 2,000 prompt tokens from the cache: billed at the cached rate.
    const result = JSON.parse(run.stdout) as { usage: { input_tokens: number; cached_tokens: number; cost_usd: number } };
    expect(result.usage).toMatchObject({ input_tokens: 7 * 2_000, cached_tokens: 7 * 1_500 });
    const price = priceFor("gpt-4.1-mini")!;
    expect(result.usage.cost_usd).toBeCloseTo(7 * costOf({ input: 2_000, output: 100, cached: 1_500 }, price)!, 12);
    expect(result.usage.cost_usd).toBeLessThan(7 * costOf({ input: 2_000, output: 100, cached: 0 }, price)!);
  });
});

function expectPrefix(before: RecordedRequest, after: RecordedRequest): void {
  const where = `${agentOf(after)} request ${after.index}`;
  // Serialised as the SDK sends them: the same bytes, not merely equal values.
  expect(JSON.stringify(after.body.tools), `${where}: tools`).toBe(JSON.stringify(before.body.tools));
  expect(after.body.messages.length, where).toBeGreaterThan(before.body.messages.length);
  expect(JSON.stringify(after.body.messages.slice(0, before.body.messages.length)), `${where}: history prefix`).toBe(JSON.stringify(before.body.messages));
}
