import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { interpolate, loadMcpJson } from "../../src/mcp/mcp-json.js";

const dirs: string[] = [];
function workspaceWith(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcpjson-"));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, ".mcp.json"), typeof content === "string" ? content : JSON.stringify(content));
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("loadMcpJson", () => {
  it("returns nothing, without errors, when the file is absent", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcpjson-"));
    dirs.push(dir);
    expect(loadMcpJson(dir)).toEqual({ servers: {}, errors: [] });
  });

  it("reads the Claude Code shape: stdio, http, sse, and url without type as Streamable HTTP", () => {
    const dir = workspaceWith({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { A: "1" }, cwd: "sub" },
        api: { type: "http", url: "https://example.com/mcp", headers: { "X-Key": "k" } },
        old: { type: "sse", url: "https://example.com/sse" },
        plain: { url: "https://example.com/other" },
      },
    });
    const { servers, errors } = loadMcpJson(dir, {});
    expect(errors).toEqual([]);
    expect(servers.fs).toMatchObject({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { A: "1" }, cwd: "sub", enabled: true });
    expect(servers.api).toMatchObject({ type: "http", url: "https://example.com/mcp", headers: { "X-Key": "k" }, call_timeout: 120_000 });
    expect(servers.old).toMatchObject({ type: "sse" });
    expect(servers.plain).toMatchObject({ url: "https://example.com/other" });
    expect(servers.plain).not.toHaveProperty("type");
  });

  it("expands ${VAR} and ${VAR:-default} in env, headers and the rest", () => {
    const dir = workspaceWith({
      mcpServers: {
        gh: { command: "gh-mcp", env: { TOKEN: "${GH_TOKEN}", MODE: "${GH_MODE:-read}" } },
        api: { url: "${API_BASE:-https://api.example.com}/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
      },
    });
    const { servers, errors } = loadMcpJson(dir, { GH_TOKEN: "t0k", API_TOKEN: "secret" });
    expect(errors).toEqual([]);
    expect(servers.gh).toMatchObject({ env: { TOKEN: "t0k", MODE: "read" } });
    expect(servers.api).toMatchObject({ url: "https://api.example.com/mcp", headers: { Authorization: "Bearer secret" } });
  });

  it("leaves out a server whose variable is unset, with one line naming it and not its value", () => {
    const dir = workspaceWith({ mcpServers: { gh: { command: "gh-mcp", env: { TOKEN: "${GH_TOKEN}" } }, ok: { command: "x" } } });
    const { servers, errors } = loadMcpJson(dir, {});
    expect(Object.keys(servers)).toEqual(["ok"]);
    expect(errors).toEqual([".mcp.json: mcpServers.gh.env.TOKEN: environment variable GH_TOKEN is not set"]);
  });

  it("gives one line per problem, naming the path", () => {
    const dir = workspaceWith({
      mcpServers: {
        github: { type: "http", url: "not a url" },
        nothing: { args: [] },
        typo: { command: "x", argz: [] },
        "bad name": { command: "x" },
        wrongtype: { command: "x", args: "a b" },
        list: [],
      },
    });
    const { servers, errors } = loadMcpJson(dir, {});
    expect(servers).toEqual({});
    expect(errors).toEqual([
      ".mcp.json: mcpServers.github.url: expected a URL",
      '.mcp.json: mcpServers.nothing: expected "command" (stdio) or "url" (http/sse)',
      ".mcp.json: mcpServers.typo.argz: unknown key",
      ".mcp.json: mcpServers.bad name: server name must use letters, digits, _ and - only",
      ".mcp.json: mcpServers.wrongtype.args: expected array",
      ".mcp.json: mcpServers.list: expected an object",
    ]);
    for (const e of errors) expect(e).not.toContain("\n");
  });

  it("reports invalid JSON in one line", () => {
    const { servers, errors } = loadMcpJson(workspaceWith("{ nope"), {});
    expect(servers).toEqual({});
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\.mcp\.json: invalid JSON: /);
  });
});

describe("interpolate", () => {
  it("follows the shell: :- replaces unset and empty, plain keeps an empty value", () => {
    expect(interpolate("${A:-x}", { A: "" })).toBe("x");
    expect(interpolate("${A:-x}", { A: "y" })).toBe("y");
    const missing: string[] = [];
    expect(interpolate("a${A}b", { A: "" }, missing)).toBe("ab");
    expect(missing).toEqual([]);
    expect(interpolate("a${B}b", {}, missing)).toBe("ab");
    expect(missing).toEqual(["B"]);
  });
});
