import fs from "node:fs";
import path from "node:path";
import { LLMock } from "@copilotkit/aimock";
import { afterEach, describe, expect, it } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * Both providers against a server orca did not write: @copilotkit/aimock serves the OpenAI chat
 * completions and the Anthropic Messages protocols from its own fixtures, so a misreading of a
 * protocol shared by orca's client and orca's scripted server cannot hide. In strict mode aimock
 * also refuses an Anthropic tool round whose leading signed thinking block was dropped.
 */

let mock: LLMock | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await mock?.stop();
  mock = undefined;
  ws?.cleanup();
  ws = undefined;
});

async function startMock(): Promise<LLMock> {
  mock = new LLMock({ port: 0, host: "127.0.0.1", strict: true, logLevel: "silent" });
  // The first leg: thinking, then two tool calls in one turn.
  mock.on(
    { userMessage: "compare a.txt and b.txt", hasToolResult: false },
    {
      reasoning: "Read both files at once.",
      reasoningSignature: "aimock-signature-1",
      toolCalls: [
        { id: "toolu_aimock_a", name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) },
        { id: "toolu_aimock_b", name: "read_file", arguments: JSON.stringify({ path: "b.txt" }) },
      ],
    },
  );
  // The second leg, once the results are in.
  mock.on({ userMessage: "compare a.txt and b.txt", hasToolResult: true }, { content: "a.txt says ALPHA; b.txt says BRAVO." });
  await mock.start();
  return mock;
}

function events(stdout: string): OrcaEvent[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OrcaEvent);
}

/** The tool results of the last chat request aimock received (it journals requests in chat shape). */
function lastToolResults(m: LLMock): string[] {
  const body = m.getLastRequest()?.body as { messages?: Array<{ role: string; content?: unknown }> } | null;
  return (body?.messages ?? []).filter((msg) => msg.role === "tool").map((msg) => String(msg.content));
}

describe("against aimock, a server orca did not write", () => {
  it("Anthropic Messages: a tool loop with parallel tool uses and extended thinking, through the bin", async () => {
    const m = await startMock();
    ws = tempWorkspace({ "a.txt": "ALPHA\n", "b.txt": "BRAVO\n" });
    const config = path.join(ws.home, "config.yaml");
    fs.writeFileSync(
      config,
      `model:\n  provider: claude\n  name: claude-haiku-4-5\nproviders:\n  claude:\n    type: anthropic\n    base_url: ${m.url}\n    api_key: aimock-key\n    max_retries: 0\n    thinking: 1024\n`,
    );
    const run = await runOrca(["-p", "compare a.txt and b.txt", "--config", config, "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    const out = events(run.stdout);
    const calls = out.filter((e): e is Extract<OrcaEvent, { type: "tool_finished" }> => e.type === "tool_finished");
    // Both reads run at once, so they may finish in either order; the next request still lists
    // their results in the order of the calls (checked at the end).
    expect(calls.map((c) => [c.callId, c.ok]).sort()).toEqual([
      ["toolu_aimock_a", true],
      ["toolu_aimock_b", true],
    ]);
    expect(out.find((e) => e.type === "assistant_message")).toMatchObject({ thinking: [{ text: "Read both files at once.", signature: "aimock-signature-1" }] });
    const answer = out.filter((e) => e.type === "assistant_message").at(-1);
    expect(answer).toMatchObject({ content: "a.txt says ALPHA; b.txt says BRAVO.", toolCalls: [] });
    // aimock saw both results, and (strict) accepted the continuation turn's thinking.
    const requests = m.getRequests().filter((r) => r.path.endsWith("/v1/messages"));
    expect(requests.map((r) => r.response.status)).toEqual([200, 200]);
    expect(lastToolResults(m)).toEqual([expect.stringContaining("ALPHA"), expect.stringContaining("BRAVO")]);
  });

  it("OpenAI chat completions: the same tool loop, through the bin", async () => {
    const m = await startMock();
    ws = tempWorkspace({ "a.txt": "ALPHA\n", "b.txt": "BRAVO\n" });
    const run = await runOrca(["-p", "compare a.txt and b.txt", "--base-url", `${m.url}/v1`, "-m", "gpt-4.1-mini"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("a.txt says ALPHA; b.txt says BRAVO.");
    const requests = m.getRequests().filter((r) => r.path.endsWith("/chat/completions"));
    expect(requests.map((r) => r.response.status)).toEqual([200, 200]);
    expect(lastToolResults(m)).toEqual([expect.stringContaining("ALPHA"), expect.stringContaining("BRAVO")]);
  });

  it("Anthropic: a dropped thinking block is what aimock refuses (the check above can fail)", async () => {
    const m = await startMock();
    // The same continuation orca sends, minus its thinking: aimock answers 400 in strict mode.
    const response = await fetch(`${m.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "k" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [
          { role: "user", content: "compare a.txt and b.txt" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_aimock_a", name: "read_file", input: { path: "a.txt" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_aimock_a", content: "ALPHA" }] },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/must begin with a `thinking` block/);
  });
});
