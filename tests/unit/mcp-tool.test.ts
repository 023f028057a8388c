import { describe, expect, it } from "vitest";
import { paramsSchema, schemaForModel } from "../../src/mcp/json-schema.js";
import { base64Size, createMcpTool, formatCallResult, mcpToolName } from "../../src/mcp/mcp-tool.js";
import { StderrTail } from "../../src/mcp/stderr-tail.js";
import { Workspace } from "../../src/tools/workspace.js";

const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64");

describe("formatCallResult", () => {
  it("keeps text and turns images, audio and blobs into placeholders with their size", () => {
    const r = formatCallResult(
      {
        content: [
          { type: "text", text: "here" },
          { type: "image", data: b64(12_595), mimeType: "image/png" },
          { type: "audio", data: b64(300), mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.bin", mimeType: "application/zip", blob: b64(2 * 1024 * 1024) } },
        ],
      },
      "s/t",
    );
    expect(r).toEqual({
      ok: true,
      content: "here\n[image: image/png, 12.3 KB]\n[audio: audio/wav, 300 B]\n[resource: file:///a.bin, application/zip, 2.0 MB]",
    });
  });

  it("inlines embedded text resources with their uri and lists resource links", () => {
    const r = formatCallResult(
      {
        content: [
          { type: "resource", resource: { uri: "mem://notes", mimeType: "text/plain", text: "line 1\nline 2" } },
          { type: "resource_link", uri: "file:///x.md", name: "x.md", description: "the readme", mimeType: "text/markdown" },
        ],
      },
      "s/t",
    );
    expect(r.content).toBe('[resource: mem://notes (text/plain)]\nline 1\nline 2\n[resource link: file:///x.md "x.md" (text/markdown) — the readme]');
  });

  it("appends structuredContent unless a text block already carries the same JSON", () => {
    const data = { temperature: 20, conditions: "sunny" };
    expect(formatCallResult({ content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data }, "s/t").content).toBe(
      JSON.stringify(data),
    );
    const appended = formatCallResult({ content: [{ type: "text", text: "Weather follows" }], structuredContent: data }, "s/t");
    expect(appended.content).toBe(`Weather follows\n${JSON.stringify(data, null, 2)}`);
    expect(formatCallResult({ content: [], structuredContent: data }, "s/t").content).toBe(JSON.stringify(data, null, 2));
  });

  it("maps isError to ok:false with a one-line error naming the tool", () => {
    const r = formatCallResult({ isError: true, content: [{ type: "text", text: "Access denied: /etc\nmore detail" }] }, "fs/read");
    expect(r).toEqual({ ok: false, error: "fs/read returned an error: Access denied: /etc", content: "Access denied: /etc\nmore detail" });
  });

  it("says so when a successful result is empty", () => {
    expect(formatCallResult({ content: [] }, "s/t")).toEqual({ ok: true, content: "(no content)" });
  });

  it("computes decoded sizes from base64 padding", () => {
    expect(base64Size(b64(1))).toBe("1 B");
    expect(base64Size(b64(2))).toBe("2 B");
    expect(base64Size(b64(1024))).toBe("1.0 KB");
  });
});

describe("mcpToolName", () => {
  it("is mcp__<server>__<tool>, with characters OpenAI refuses replaced", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my.server", "files/read v2")).toBe("mcp__my_server__files_read_v2");
  });

  it("cuts names over 64 characters but keeps them distinct and stable", () => {
    const a = mcpToolName("server", `${"x".repeat(80)}a`);
    const b = mcpToolName("server", `${"x".repeat(80)}b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(mcpToolName("server", `${"x".repeat(80)}a`)).toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("schemaForModel", () => {
  it("keeps nested objects, oneOf and $defs, and drops $schema", () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        target: { oneOf: [{ $ref: "#/$defs/file" }, { type: "object", properties: { url: { type: "string", format: "uri" } } }] },
        opts: { type: "object", properties: { depth: { type: "integer" } }, additionalProperties: false },
      },
      required: ["target"],
      $defs: { file: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    };
    const out = schemaForModel(input);
    const { $schema: _dropped, ...rest } = input;
    expect(out).toEqual(rest);
    expect(input).toHaveProperty("$schema"); // the server's definition is left alone
  });

  it("forces a top-level object with properties", () => {
    expect(schemaForModel({})).toEqual({ type: "object", properties: {} });
    expect(schemaForModel(undefined)).toEqual({ type: "object", properties: {} });
  });

  it("folds top-level anyOf (which OpenAI refuses) into optional properties", () => {
    const out = schemaForModel({
      type: "object",
      anyOf: [
        { properties: { id: { type: "number" } }, required: ["id"] },
        { properties: { name: { type: "string" } }, required: ["name"] },
      ],
    });
    expect(out).toEqual({ type: "object", properties: { id: { type: "number" }, name: { type: "string" } } });
  });
});

describe("paramsSchema", () => {
  const schema = {
    type: "object",
    properties: { path: { type: "string" }, opts: { type: "object", properties: { depth: { type: "integer", minimum: 0 } } } },
    required: ["path"],
  };

  it("accepts valid arguments as they are", () => {
    expect(paramsSchema(schema).parse({ path: "a", opts: { depth: 2 } })).toEqual({ path: "a", opts: { depth: 2 } });
  });

  it("reports each problem with its path", () => {
    const r = paramsSchema(schema).safeParse({ opts: { depth: -1 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["", "must have required property 'path'"],
      ["opts.depth", "must be >= 0"],
    ]);
  });

  it("treats missing arguments as {} for tools without required parameters", () => {
    expect(paramsSchema({ type: "object", properties: {} }).parse(null)).toEqual({});
    expect(paramsSchema(schema).safeParse(undefined).success).toBe(false);
    expect(paramsSchema(schema).safeParse("path").success).toBe(false);
  });

  it("falls back to required keys when the schema cannot be compiled", () => {
    const broken = { type: "object", properties: { a: { $ref: "#/nowhere" } }, required: ["a"] };
    expect(paramsSchema(broken).safeParse({}).success).toBe(false);
    expect(paramsSchema(broken).safeParse({ a: 1 }).success).toBe(true);
  });
});

describe("createMcpTool", () => {
  const ws = new Workspace(process.cwd());
  const definition = { name: "search", description: "Search things", inputSchema: { type: "object" as const, properties: {} } };
  const call = async () => ({ ok: true, content: "" });

  it("is a write of mcp:<server> unless readOnlyHint is true", () => {
    const writer = createMcpTool({ server: "db", definition, call });
    expect(writer.name).toBe("mcp__db__search");
    expect(writer.readOnly({})).toBe(false);
    expect(writer.access({}, ws)).toEqual({ reads: [], writes: ["mcp:db"] });
    const reader = createMcpTool({ server: "db", definition: { ...definition, annotations: { readOnlyHint: true } }, call });
    expect(reader.readOnly({})).toBe(true);
    expect(reader.access({}, ws)).toEqual({ reads: ["mcp:db"], writes: [] });
    expect(reader.permissionSubject({}, ws)).toEqual({ kind: "none" });
  });
});

describe("StderrTail", () => {
  it("keeps only the last bytes and hands over complete lines", () => {
    const lines: string[] = [];
    const tail = new StderrTail((l) => lines.push(l), 100);
    tail.push("first li");
    tail.push("ne\nsecond\n");
    for (let i = 0; i < 50; i++) tail.push(`noise ${i}\n`);
    expect(lines.slice(0, 2)).toEqual(["first line", "second"]);
    expect(lines).toHaveLength(52);
    expect(tail.tail(1000).length).toBeLessThanOrEqual(100);
    expect(tail.lastLine()).toBe("noise 49");
    tail.push("x".repeat(250));
    expect(lines.at(-1)).toHaveLength(100);
  });
});
