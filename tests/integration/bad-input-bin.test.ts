/**
 * Bad input through the real bin (issue 26): tool arguments nested deeper than any tool takes are
 * an error result for that call, not the end of the run; a key split in two is redacted on stderr
 * and in the json result as it is in stream-json and the log.
 */
import { describe, expect, it } from "vitest";
import { lastToolResult, runOrca, TEST_KEY } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

describe("bad input", () => {
  it("a tool argument nested 10,000 deep is an error result for that call; the run goes on and ends done", async () => {
    const deep = `{"path":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const server = await scriptedServer([{ toolCalls: [{ name: "read_file", rawArgs: deep }] }, { text: "carried on" }]);
    const ws = workspace();
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws });
    expect(run.stderr).not.toContain("Maximum call stack");
    expect(run.code, run.stderr).toBe(0);
    expect(lastToolResult(server.requests[1]!)).toMatch(/nested 10001 levels deep; at most 64 are accepted/);
    expect(run.stdout).toContain("carried on");
  });

  it("a key split in two is redacted on stderr and in the json result", async () => {
    // TEST_KEY's halves, as a model (or a server's error) might print them.
    const split = `${TEST_KEY.slice(0, 12)} ${TEST_KEY.slice(12)}`;
    const tail = TEST_KEY.slice(12);
    let server = await scriptedServer([{ text: `the key is ${split}` }]);
    const ws = workspace();
    const json = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "json"], { ws });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain("[redacted]");
    expect(json.stdout).not.toContain(tail);
    await server.close();

    server = await scriptedServer([{ kind: "error", status: 400, message: `bad request for key ${split}` }]);
    const failed = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(failed.stderr).toContain("[redacted]");
    expect(failed.stderr).not.toContain(tail);
  });
});
