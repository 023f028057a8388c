import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { runOrca, sessionLogs } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/** A prompt (or a whole request) that cannot fit the model's context window is refused before anything is sent. */

/** About 1.3 MB of varied words: well over 128k tokens in any tokenizer. */
function hugePrompt(): string {
  const words: string[] = [];
  for (let i = 0; i < 180_000; i++) words.push(`w${(i * 7919) % 100_003}`);
  return words.join(" ");
}

describe("context fit", () => {
  it("a prompt larger than gpt-4o's window exits 2 with its size and the window; no request reaches the server", async () => {
    const server = await scriptedServer([{ text: "never" }]);
    const ws = workspace();
    const run = await runOrca(["-p", "-m", "gpt-4o", "--base-url", server.url], { ws, input: hugePrompt(), timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^orca: the prompt is [\d,]+ tokens \(1\.\d MB\); gpt-4o's context window is 128,000 tokens: not sent\n$/);
    const tokens = Number(/is ([\d,]+) tokens/.exec(run.stderr)![1]!.replace(/,/g, ""));
    expect(tokens).toBeGreaterThan(128_000);
    expect(server.requests).toHaveLength(0);
    expect(run.stdout).toBe("");
  }, 90_000);

  it("a prompt that fits but a request that does not (system prompt and tools over a small window) is refused unsent too", async () => {
    const server = await scriptedServer([{ text: "never" }]);
    const ws = workspace({ ".orca/config.yaml": "model:\n  context_window: 500\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/the request is [\d,]+ tokens \(system prompt, conversation and tools\); gpt-4\.1-mini's context window is 500 tokens: not sent/);
    expect(server.requests).toHaveLength(0);
    expect(sessionLogs(ws).map((f) => fs.readFileSync(f, "utf8")).join("\n")).toMatch(/"where":"context"/);
  });

  it("a prompt just under the window is sent", async () => {
    const server = await scriptedServer([{ text: "fine" }]);
    const ws = workspace();
    const run = await runOrca(["-p", "-m", "gpt-4o", "--base-url", server.url], { ws, input: "hello ".repeat(40_000) });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  }, 60_000);
});
