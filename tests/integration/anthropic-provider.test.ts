import fs from "node:fs";
import path from "node:path";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, describe, expect, it } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import { costOf, priceFor } from "../../src/model/pricing.js";
import {
  startScriptedAnthropicServer,
  TEST_SIGNATURE,
  type AnthropicRecordedRequest,
  type ScriptedAnthropicReply,
  type ScriptedAnthropicServer,
} from "../../src/model/scripted-anthropic.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, expectValidHistories, perAgent, runOrca, sessionLogs, tempWorkspace, type TempWorkspace, stderrBesidesReport } from "../fixtures/harness.js";

/**
 * The Anthropic provider through the real bin: the real @anthropic-ai/sdk over HTTP to a scripted
 * Messages server, configured as a user would in config.yaml.
 */

const ANTHROPIC_KEY = "sk-ant-test-0123456789SECRET";

let servers: Array<ScriptedAnthropicServer | ScriptedServer> = [];
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  ws?.cleanup();
  ws = undefined;
});

async function anthropicServer(script: Parameters<typeof startScriptedAnthropicServer>[0]): Promise<ScriptedAnthropicServer> {
  const server = await startScriptedAnthropicServer(script);
  servers.push(server);
  return server;
}

/** A config whose model runs on the scripted Anthropic server. */
function claudeConfig(w: TempWorkspace, url: string, extra = ""): string {
  const file = path.join(w.home, "config.yaml");
  fs.writeFileSync(
    file,
    `model:\n  provider: claude\n  name: claude-sonnet-4-6\nproviders:\n  claude:\n    type: anthropic\n    base_url: ${url}\n    api_key: ${ANTHROPIC_KEY}\n    max_retries: 2\n${extra}`,
  );
  return file;
}

const blocksOf = (message: MessageParam | undefined) => (message?.content ?? []) as ContentBlockParam[];
const read = (file: string, id?: string) => ({ id, name: "read_file", args: { path: file } });

function events(stdout: string): OrcaEvent[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OrcaEvent);
}

describe("the Anthropic provider through orca -p", () => {
  it("runs a tool loop with two parallel tool uses, keeping signed thinking across the tool round", async () => {
    const server = await anthropicServer([
      { thinking: "Both files matter; read them together.", text: "Reading both.", toolCalls: [read("a.txt", "toolu_a"), read("b.txt", "toolu_b")], interleave: true, argChunkChars: 3 },
      { thinking: "Now compare.", text: "a says ALPHA, b says BRAVO." },
    ]);
    ws = tempWorkspace({ "a.txt": "ALPHA\n", "b.txt": "BRAVO\n" });
    const config = claudeConfig(ws, server.url, "    thinking: 2048\n");
    const run = await runOrca(["-p", "compare a.txt and b.txt", "--config", config, "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expectValidHistories(server.requests);

    const [first, second] = server.requests as AnthropicRecordedRequest[];
    expect(first!.headers.authorization).toBe(`Bearer ${ANTHROPIC_KEY}`);
    expect(first!.anthropic).toMatchObject({ model: "claude-sonnet-4-6", stream: true, thinking: { type: "enabled", budget_tokens: 2048 }, max_tokens: 8192 + 2048 });
    expect(first!.anthropic.system).toEqual([expect.objectContaining({ type: "text", text: expect.stringContaining("You are agent coordinator") })]);
    // The second request: the task, the assistant turn exactly as the model wrote it (signed
    // thinking first, then text and both tool uses), and both results in one user turn.
    const messages = second!.anthropic.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(blocksOf(messages[1]).map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(blocksOf(messages[1])[0]).toEqual({ type: "thinking", thinking: "Both files matter; read them together.", signature: TEST_SIGNATURE });
    expect(blocksOf(messages[1]).slice(2)).toEqual([
      { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "b.txt" } },
    ]);
    const results = blocksOf(messages[2]);
    expect(results.map((b) => (b.type === "tool_result" ? b.tool_use_id : b.type))).toEqual(["toolu_a", "toolu_b"]);
    expect(JSON.stringify(results[0])).toContain("ALPHA");
    expect(JSON.stringify(results[1])).toContain("BRAVO");

    const out = events(run.stdout);
    expect(out.filter((e) => e.type === "thinking_delta").map((e) => (e as { text: string }).text).join("")).toContain("Both files matter");
    const assistant = out.find((e) => e.type === "assistant_message");
    expect(assistant).toMatchObject({ thinking: [{ text: "Both files matter; read them together.", signature: TEST_SIGNATURE, model: "claude-sonnet-4-6" }] });
    const log = fs.readFileSync(sessionLogs(ws)[0]!, "utf8");
    expect(log).toContain(TEST_SIGNATURE);
    expect(log + run.stdout + run.stderr).not.toContain(ANTHROPIC_KEY);
  });

  it("a stream cut mid-response, or one that ends without message_stop, is an error, not an answer", async () => {
    const server = await anthropicServer([
      { text: "This answer will be cut off somewhere in the middle", chunkChars: 4, cutAfterChunks: 6 },
      { text: "This answer ends without message_stop", omitFinishReason: true },
    ]);
    ws = tempWorkspace();
    const config = claudeConfig(ws, server.url);
    const cut = await runOrca(["-p", "hi", "--config", config], { ws });
    expect(cut.code).toBe(1);
    expect(cut.stdout).toBe("");
    expect(cut.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^orca: connection to http:\/\/127\.0\.0\.1:\d+ lost mid-response/)]);
    const unfinished = await runOrca(["-p", "hi", "--config", config], { ws });
    expect(unfinished.code).toBe(1);
    expect(unfinished.stderr.trim()).toBe("orca: the model's response was cut off (no message_stop)");
    // Neither was retried: a response that started is never sent again.
    expect(server.requests).toHaveLength(2);
  });

  it("max_tokens ends the run with one line saying what to raise", async () => {
    const server = await anthropicServer([{ text: "A long answer that", stopReason: "max_tokens" }]);
    ws = tempWorkspace();
    const run = await runOrca(["-p", "hi", "--config", claudeConfig(ws, server.url)], { ws });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe("orca: the response reached its output limit (max_tokens 8192) before it finished: raise max_output_tokens");
  });

  it("retries a 429 as its Retry-After says, before any output, then succeeds; gives up with one line", async () => {
    const server = await anthropicServer([{ kind: "error", status: 429, retryAfter: 0.01, message: "slow down" }, { text: "ok after retry" }]);
    ws = tempWorkspace();
    const config = claudeConfig(ws, server.url);
    // A model the SDK would print a deprecation notice for: the core writes nothing to the terminal.
    const run = await runOrca(["-p", "hi", "--config", config, "-m", "claude-sonnet-4-5"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(stderrBesidesReport(run.stderr)).toBe("");
    expect(run.stdout.trim()).toBe("ok after retry");
    expect(server.requests.map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5"]);
    expect(server.requests).toHaveLength(2);

    const limited = await anthropicServer(Array.from({ length: 3 }, (): ScriptedAnthropicReply => ({ kind: "error", status: 429, retryAfter: 0.01, message: "slow down" })));
    const failed = await runOrca(["-p", "hi", "--config", claudeConfig(ws, limited.url)], { ws });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(/^orca: rate limited \(429\) by http:\/\/127\.0\.0\.1:\d+ \(after 3 attempts\): slow down$/);
  });

  it("a coordinator on one provider delegates to an explorer on another; each request goes to its own endpoint, cached", async () => {
    const openai = await startScriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "explorer", task: "where is ALPHA?" } }] }, { text: "ALPHA is in a.txt (the explorer said so)." }],
      }),
    );
    servers.push(openai);
    const claude = await anthropicServer(
      perAgent({
        "explorer-1": [
          { text: "Looking.", toolCalls: [{ name: "glob", args: { pattern: "*.txt" } }, { name: "grep", args: { pattern: "ALPHA" } }] },
          { toolCalls: [read("a.txt")] },
          { toolCalls: [read("b.txt")] },
          { text: "ALPHA is in a.txt." },
        ],
      }),
    );
    ws = tempWorkspace({
      "a.txt": "ALPHA\n",
      "b.txt": "BRAVO\n",
      ".orca/agents/explorer.md": "---\nname: explorer\ndescription: Finds things.\ntools: [read_file, glob, grep]\nmodel: claude/claude-haiku-4-5\n---\nYou find things.\n",
    });
    const config = path.join(ws.home, "config.yaml");
    fs.writeFileSync(config, `model:\n  name: gpt-4.1-mini\nproviders:\n  claude:\n    type: anthropic\n    base_url: ${claude.url}\n    api_key: ${ANTHROPIC_KEY}\n`);
    const run = await runOrca(["-p", "find ALPHA", "--config", config, "--base-url", openai.url, "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);

    expect(openai.requests.map(agentOf)).toEqual(["coordinator", "coordinator"]);
    expect(claude.requests.map(agentOf)).toEqual(["explorer-1", "explorer-1", "explorer-1", "explorer-1"]);
    expect(new Set(claude.requests.map((r) => r.body.model))).toEqual(new Set(["claude-haiku-4-5"]));
    expect(openai.requests[0]!.headers.authorization).not.toContain(ANTHROPIC_KEY);
    expectValidHistories([...openai.requests, ...claude.requests]);
    expect(openai.requests[1]!.body.messages.at(-1)?.content).toContain("ALPHA is in a.txt.");

    // Every explorer request marks its stable prefix: tools, system and the last message; from
    // the second on also the point the step before wrote.
    const requests = claude.requests as AnthropicRecordedRequest[];
    requests.forEach((request, i) => {
      const body = request.anthropic;
      expect(body.tools!.at(-1)!.cache_control, `request ${i}: tools`).toEqual({ type: "ephemeral" });
      expect((body.system as ContentBlockParam[]).at(-1)).toHaveProperty("cache_control", { type: "ephemeral" });
      expect(blocksOf(body.messages.at(-1)).at(-1)).toHaveProperty("cache_control", { type: "ephemeral" });
      const marks = JSON.stringify(body).split('"cache_control"').length - 1;
      expect(marks, `request ${i}: breakpoints`).toBe(i === 0 ? 3 : 4);
    });
    // And the prefix is byte-stable: each request starts with the one before, tools and system unchanged.
    const unmarked = (value: unknown) => JSON.stringify(value).replace(/,"cache_control":\{"type":"ephemeral"\}/g, "");
    for (let i = 1; i < requests.length; i++) {
      const [before, after] = [requests[i - 1]!.anthropic, requests[i]!.anthropic];
      expect(unmarked(after.tools)).toBe(unmarked(before.tools));
      expect(unmarked(after.system)).toBe(unmarked(before.system));
      expect(unmarked(after.messages.slice(0, before.messages.length))).toBe(unmarked(before.messages));
    }

    // The server read each step's prefix back from its cache; the cost prices those reads.
    const usage = events(run.stdout).filter((e): e is Extract<OrcaEvent, { type: "usage" }> => e.type === "usage" && e.agentId === "explorer-1");
    expect(usage).toHaveLength(4);
    expect(usage[0]!.cached).toBe(0);
    expect(usage[0]!.cacheWrite).toBeGreaterThan(0);
    const price = priceFor("claude-haiku-4-5")!;
    for (const [i, u] of usage.entries()) {
      if (i > 0) expect(u.cached, `step ${i + 1} read its prefix`).toBeGreaterThan(u.input / 2);
      expect(u.cost).toBeCloseTo(costOf(u, price)!, 12);
      if (i > 0) expect(u.cost!).toBeLessThan(costOf({ input: u.input, output: u.output, cached: 0 }, price)!);
    }
  });

  it("the session log is provider-neutral: a session resumes on OpenAI, then on Anthropic with its thinking intact", async () => {
    const claude = await anthropicServer([
      { thinking: "Read a first.", signature: "sig-round-1", toolCalls: [read("a.txt", "toolu_r1")] },
      { text: "a says ALPHA." },
      { text: "and c is not there." },
    ]);
    const openai = await startScriptedServer([{ text: "b says BRAVO." }]);
    servers.push(openai);
    ws = tempWorkspace({ "a.txt": "ALPHA\n", "b.txt": "BRAVO\n" });
    const onClaude = claudeConfig(ws, claude.url, "    thinking: 1024\n");
    const onOpenAI = path.join(ws.home, "openai.yaml");
    fs.writeFileSync(onOpenAI, "model:\n  name: gpt-4.1-mini\n");

    const first = await runOrca(["-p", "what does a say?", "--config", onClaude], { ws });
    expect(first.code, first.stderr).toBe(0);
    const second = await runOrca(["--continue", "-p", "and b?", "--config", onOpenAI, "--base-url", openai.url], { ws });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe("b says BRAVO.");
    // OpenAI gets the whole conversation, its tool round included, and no trace of the thinking.
    const seen = openai.requests[0]!.body.messages;
    expect(seen.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(seen[2]!.tool_calls?.[0]?.id).toBe("toolu_r1");
    expect(JSON.stringify(seen)).not.toContain("sig-round-1");

    const third = await runOrca(["--continue", "-p", "and c?", "--config", onClaude], { ws });
    expect(third.code, third.stderr).toBe(0);
    const messages = (claude.requests.at(-1) as AnthropicRecordedRequest).anthropic.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user"]);
    expect(blocksOf(messages[1])[0]).toEqual({ type: "thinking", thinking: "Read a first.", signature: "sig-round-1" });
    expect(blocksOf(messages[5])).toEqual([{ type: "text", text: "b says BRAVO." }]);
  });

  it("orca agents shows each agent's provider and model; an unknown provider is a one-line failure", async () => {
    ws = tempWorkspace({
      ".orca/agents/explorer.md": "---\nname: explorer\ndescription: Finds things.\ntools: [read_file]\nmodel: fast/claude-haiku-4-5\n---\nYou find things.\n",
      ".orca/agents/tester.md": "---\nname: tester\ndescription: Tests.\ntools: [bash]\nmodel: fsat/claude-haiku-4-5\n---\nYou test.\n",
    });
    const config = path.join(ws.home, "config.yaml");
    fs.writeFileSync(config, "model:\n  name: gpt-4.1-mini\nproviders:\n  fast:\n    type: anthropic\n");
    const run = await runOrca(["agents", "--config", config], { ws });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    const after = (name: string) => lines[lines.findIndex((l) => l.trim().startsWith(`${name} `)) + 2]?.trim();
    expect(after("explorer")).toBe("provider: fast (anthropic) · model: claude-haiku-4-5");
    expect(after("coordinator")).toBe("provider: default (openai) · model: gpt-4.1-mini (inherit)");
    expect(run.stdout).toMatch(/failed: .*tester\.md: model "fsat\/claude-haiku-4-5": no provider named "fsat" \(providers: default, fast\)/);

    const bad = await runOrca(["-p", "hi", "--config", config, "--agent", "tester"], { ws });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/agent tester: model "fsat\/claude-haiku-4-5": no provider named "fsat"/);
  });

  it("an Anthropic provider without a key is one line at start, and no request is sent", async () => {
    ws = tempWorkspace();
    const config = path.join(ws.home, "config.yaml");
    fs.writeFileSync(config, "model:\n  provider: claude\nproviders:\n  claude:\n    type: anthropic\n");
    const run = await runOrca(["-p", "hi", "--config", config], { ws, env: { ANTHROPIC_API_KEY: undefined } });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('orca: no API key for provider "claude": set ANTHROPIC_API_KEY or providers.claude.api_key; try `orca --demo` to see orca without one');
  });
});
