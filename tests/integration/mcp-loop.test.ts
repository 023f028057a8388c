import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, toolNames, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { agentOf, lastToolResult, perAgent, runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { bin, startEverything, type RunningServer } from "../fixtures/mcp-servers.js";
import { testOrchestra } from "../fixtures/orchestra.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;
const remotes: RunningServer[] = [];

afterEach(async () => {
  await orchestra?.session.close();
  await server?.close();
  await Promise.all(remotes.splice(0).map((r) => r.stop()));
  ws?.cleanup();
  server = orchestra = ws = undefined;
});

const echoAndSum = (prefix: string) => [
  { toolCalls: [{ name: `mcp__${prefix}__echo`, args: { message: `hello from ${prefix}` } }, { name: `mcp__${prefix}__get-sum`, args: { a: 2, b: 40 } }] },
  { text: "done" },
];

describe("MCP tools through the agent loop", () => {
  it("calls echo and get-sum over stdio, Streamable HTTP and SSE", async () => {
    const http = await startEverything("streamableHttp");
    const sse = await startEverything("sse");
    remotes.push(http, sse);
    server = await startScriptedServer([...echoAndSum("stdio"), ...echoAndSum("http"), ...echoAndSum("sse")]);
    ws = tempWorkspace();
    const config = [
      "mcp_servers:",
      "  stdio:",
      `    command: ${bin("mcp-server-everything")}`,
      "  http:",
      `    url: ${http.url}`,
      "  sse:",
      "    type: sse",
      `    url: ${sse.url}`,
    ].join("\n");
    orchestra = await testOrchestra(ws, server.url, { config: `${config}\npermissions:\n  mode: bypass\n` });
    for (const [i, prefix] of ["stdio", "http", "sse"].entries()) {
      const result = await orchestra.session.run(`use ${prefix}`);
      expect(result.status).toBe("done");
      const answered = server.requests[i * 2 + 1]!;
      const results = answered.body.messages.filter((m) => m.role === "tool").slice(-2).map((m) => m.content ?? "");
      expect(results[0]).toContain(`hello from ${prefix}`);
      expect(results[1]).toContain("42");
    }
    // The model was offered the servers' tools with their schemas.
    const offered = server.requests[0]!.body.tools!.find((t) => t.function.name === "mcp__stdio__get-sum");
    expect(offered?.function.parameters).toMatchObject({ type: "object", properties: { a: expect.any(Object), b: expect.any(Object) } });
  });

  it("a whitelist glob (mcp__mem__*) gives a sub-agent only that server's tools; memory round-trips an entity", async () => {
    server = await startScriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "rememberer", task: "remember Ada" } }] }, { text: "ok" }],
        "rememberer-1": [
          { toolCalls: [{ name: "mcp__mem__create_entities", args: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] } }] },
          { toolCalls: [{ name: "mcp__mem__open_nodes", args: { names: ["Ada"] } }] },
          { text: "remembered" },
        ],
      }),
    );
    ws = tempWorkspace();
    fs.mkdirSync(path.join(ws.dir, ".orca", "agents"), { recursive: true });
    fs.writeFileSync(
      path.join(ws.dir, ".orca", "agents", "rememberer.md"),
      "---\nname: rememberer\ndescription: Keeps facts in the memory server.\ntools: [\"mcp__mem__*\"]\n---\nYou remember things.\n",
    );
    const memoryFile = path.join(ws.home, "memory.jsonl");
    const config = `mcp_servers:\n  mem:\n    command: ${bin("mcp-server-memory")}\n    env: { MEMORY_FILE_PATH: "${memoryFile}" }\n  other:\n    command: ${bin("mcp-server-everything")}\npermissions:\n  mode: bypass\n`;
    orchestra = await testOrchestra(ws, server.url, { config });
    const result = await orchestra.session.run("remember");
    expect(result.status).toBe("done");
    const subRequests = server.requests.filter((r) => agentOf(r) === "rememberer-1");
    const offered = toolNames(subRequests[0]!);
    expect(offered.length).toBeGreaterThan(0);
    // Besides orca's message_agent, which every agent has toward its parent unless can_message says
    // otherwise (docs/agents.md), only that server's tools: no other server's, no built-in.
    expect(offered.filter((n) => n !== "message_agent").every((n) => n.startsWith("mcp__mem__"))).toBe(true);
    expect(offered.some((n) => n.startsWith("mcp__mem__"))).toBe(true);
    expect(lastToolResult(subRequests[2]!)).toContain("wrote the first program");
  });

  it("a server that cannot start is reported and the run goes on; orca mcp shows why", async () => {
    server = await startScriptedServer([{ text: "still working" }]);
    ws = tempWorkspace();
    fs.writeFileSync(path.join(ws.dir, ".mcp.json"), JSON.stringify({ mcpServers: { broken: { command: "orca-no-such-command-xyz" } } }));
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("still working");
    const listed = await runOrca(["mcp"], { ws });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/broken\s+stdio\s+failed: .*not found/);
  });
});
