import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpRemoteServerConfig } from "../../src/config/schema.js";
import { McpManager } from "../../src/mcp/manager.js";
import { Workspace } from "../../src/tools/workspace.js";
import { freePort, runTool, startEverything, toolContext, type RunningServer } from "../fixtures/mcp-servers.js";

const remote = (url: string, type?: "http" | "sse", extra: Partial<McpRemoteServerConfig> = {}): McpRemoteServerConfig => ({
  ...(type ? { type } : {}),
  url,
  headers: { "X-Orca-Test": "1" },
  enabled: true,
  connect_timeout: 20_000,
  call_timeout: 20_000,
  ...extra,
});

describe("McpManager over Streamable HTTP and SSE (server-everything)", () => {
  const workspace = new Workspace(os.tmpdir());
  const servers: RunningServer[] = [];
  let manager: McpManager;
  let refusedPort: number;

  beforeAll(async () => {
    const [http, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
    servers.push(http, sse);
    refusedPort = await freePort();
    manager = new McpManager({
      workspace,
      servers: {
        // No `type` with a url means Streamable HTTP, as in Claude Code's .mcp.json.
        web: remote(http.url),
        legacy: remote(sse.url, "sse"),
        down: remote(`http://127.0.0.1:${refusedPort}/mcp`, "http"),
      },
    });
    await manager.start();
  }, 60_000);

  afterAll(async () => {
    await manager?.close();
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("connects both transports and reports a refused one as failed", () => {
    const byName = Object.fromEntries(manager.status().map((s) => [s.name, s]));
    expect(byName.web).toMatchObject({ transport: "http", state: "connected" });
    expect(byName.legacy).toMatchObject({ transport: "sse", state: "connected" });
    expect(byName.down).toMatchObject({ transport: "http", state: "failed", reason: "connection refused" });
    expect(byName.web.tools).toContain("mcp__web__get-sum");
    expect(byName.legacy.tools).toContain("mcp__legacy__echo");
  });

  for (const server of ["web", "legacy"]) {
    it(`calls echo and get-sum over ${server === "web" ? "Streamable HTTP" : "SSE"}`, async () => {
      const ctx = toolContext(workspace);
      const echo = await runTool(manager.tools(), `mcp__${server}__echo`, { message: `via ${server}` }, ctx);
      expect(echo).toMatchObject({ ok: true, content: `Echo: via ${server}` });
      const sum = await runTool(manager.tools(), `mcp__${server}__get-sum`, { a: 19, b: 23 }, ctx);
      expect(sum.ok).toBe(true);
      expect(sum.content).toContain("42");
    });
  }

  it("appends structuredContent only when no text block already carries it", async () => {
    const result = await runTool(manager.tools(), "mcp__web__get-structured-content", { location: "Chicago" }, toolContext(workspace));
    expect(result.ok).toBe(true);
    // server-everything sends the same JSON as text and as structuredContent: it appears once.
    expect(result.content.match(/temperature/g)).toHaveLength(1);
  });
});
