import { isDeepStrictEqual } from "node:util";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { AnyTool, Tool, ToolContext, ToolResult } from "../tools/tool.js";
import { paramsSchema, schemaForModel, type JsonObject } from "./json-schema.js";

/** How an MCP tool reaches its server; the manager supplies it (connection, timeout, reconnect). */
export type McpCall = (args: JsonObject, ctx: ToolContext) => Promise<ToolResult>;

const NAME_MAX = 64; // OpenAI's limit on function names

/** Characters OpenAI accepts in a function name; anything else becomes `_`. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned.length > 0 ? cleaned : "_";
}

/**
 * `mcp__<server>__<tool>`. Names over OpenAI's 64-character limit are cut and given a short hash
 * of the full name, so they stay unique and stable across restarts.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= NAME_MAX) return full;
  const hash = fnv1a(`${server}\0${tool}`).toString(36).padStart(7, "0").slice(0, 7);
  return `${full.slice(0, NAME_MAX - 8)}_${hash}`;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A server's tools as orca tools. Two tool names that clash once sanitised keep the first; the
 * other is skipped with a log line, never silently overwritten.
 */
export function serverTools(
  server: string,
  definitions: McpToolDefinition[],
  call: (tool: string, args: JsonObject, ctx: ToolContext) => Promise<ToolResult>,
  log: (line: string) => void,
): AnyTool[] {
  const seen = new Set<string>();
  const tools: AnyTool[] = [];
  for (const definition of definitions) {
    const name = mcpToolName(server, definition.name);
    if (seen.has(name)) {
      log(`mcp ${server}: tool "${definition.name}" skipped: its name clashes with another tool as ${name}`);
      continue;
    }
    seen.add(name);
    tools.push(createMcpTool({ server, definition, name, call: (args, ctx) => call(definition.name, args, ctx) }));
  }
  return tools;
}

/** An MCP server tool as an orca Tool. The server's input schema goes to the model whole. */
export function createMcpTool(opts: {
  server: string;
  definition: McpToolDefinition;
  name?: string;
  call: McpCall;
}): AnyTool {
  const { server, definition, call } = opts;
  const readOnly = definition.annotations?.readOnlyHint === true;
  const pseudoPath = `mcp:${server}`;
  const description = [definition.title && definition.title !== definition.name ? definition.title : "", definition.description ?? ""]
    .filter(Boolean)
    .join(": ");
  const tool: Tool<JsonObject> = {
    name: opts.name ?? mcpToolName(server, definition.name),
    description: description || `Tool ${definition.name} of MCP server ${server}.`,
    params: paramsSchema(definition.inputSchema),
    jsonSchema: schemaForModel(definition.inputSchema),
    readOnly: () => readOnly,
    readOnlyClaimed: true,
    access: () => (readOnly ? { reads: [pseudoPath], writes: [] } : { reads: [], writes: [pseudoPath] }),
    permissionSubject: () => ({ kind: "none" }),
    execute: (args, ctx) => call(args, ctx),
  };
  return tool as AnyTool;
}

/** One block of a `tools/call` result, as far as orca reads it. */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface CallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  /** Old servers (protocol 2024-10-07) answer with `toolResult` instead of content. */
  toolResult?: unknown;
}

/** `12.3 KB` for a base64 payload, from its decoded size. */
export function base64Size(data: string): string {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return formatBytes(Math.max(0, Math.floor((clean.length * 3) / 4) - padding));
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType ?? "unknown type"}, ${base64Size(block.data ?? "")}]`;
    case "resource_link": {
      const label = block.title ?? block.name;
      const parts = [`[resource link: ${block.uri ?? "?"}`];
      if (label) parts.push(` "${label}"`);
      if (block.mimeType) parts.push(` (${block.mimeType})`);
      if (block.description) parts.push(` — ${block.description}`);
      return parts.join("") + "]";
    }
    case "resource": {
      const r = block.resource ?? {};
      if (typeof r.text === "string") return `[resource: ${r.uri ?? "?"}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`;
      return `[resource: ${r.uri ?? "?"}, ${r.mimeType ?? "binary"}, ${base64Size(r.blob ?? "")}]`;
    }
    default:
      return `[${block.type} content]`;
  }
}

function asBlocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is ContentBlock => typeof b === "object" && b !== null && typeof (b as { type?: unknown }).type === "string");
}

/** True when some text block already says what `structured` says (servers often send both). */
function textDuplicates(blocks: ContentBlock[], structured: unknown): boolean {
  return blocks.some((b) => {
    if (b.type !== "text" || typeof b.text !== "string") return false;
    try {
      return isDeepStrictEqual(JSON.parse(b.text), structured);
    } catch {
      return false;
    }
  });
}

/** Maps an MCP `tools/call` result to what the model reads. */
export function formatCallResult(result: CallResultLike, label: string): ToolResult {
  const blocks = asBlocks(result.content);
  const parts = blocks.map(blockText);
  if (result.structuredContent !== undefined && !textDuplicates(blocks, result.structuredContent)) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (blocks.length === 0 && result.toolResult !== undefined) {
    parts.push(typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult, null, 2));
  }
  const content = parts.join("\n");
  if (result.isError === true) {
    const firstLine = content.split("\n").find((l) => l.trim().length > 0)?.trim() ?? "";
    const error = `${label} returned an error${firstLine ? `: ${truncate(firstLine, 200)}` : ""}`;
    return { ok: false, error, content: content || `Error: ${error}` };
  }
  return { ok: true, content: content || "(no content)" };
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
