import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import type { Workspace } from "../tools/workspace.js";

/** A server's `elicitation/create` request, for a UI (or headless policy) to answer. */
export interface McpElicitation {
  server: string;
  params: ElicitRequest["params"];
  signal: AbortSignal;
}

export interface ClientOptions {
  server: string;
  clientName: string;
  clientVersion: string;
  /** The roots offered to the server: the workspace and its additional folders. */
  workspace: Workspace;
  /** Only when set does orca declare the elicitation capability. */
  onElicit?: (request: McpElicitation) => Promise<ElicitResult>;
  /** The server's new tool list after it announced a change. */
  onToolsChanged(tools: McpToolDefinition[]): void;
}

/** One MCP client as orca sets it up: its capabilities and the requests it answers. */
export function createClient(opts: ClientOptions): Client {
  const capabilities: ClientCapabilities = { roots: { listChanged: false } };
  if (opts.onElicit) capabilities.elicitation = { form: { applyDefaults: true } };
  const client = new Client(
    { name: opts.clientName, version: opts.clientVersion },
    {
      capabilities,
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (!error && tools) opts.onToolsChanged(tools);
          },
        },
      },
    },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots(opts.workspace) }));
  const onElicit = opts.onElicit;
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => onElicit({ server: opts.server, params: request.params, signal: extra.signal }));
  }
  return client;
}

/** Every page of tools/list (none when the server has no tools capability). */
export async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<McpToolDefinition[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function roots(ws: Workspace): { uri: string; name: string }[] {
  return [ws.root, ...ws.additionalDirs].map((dir) => ({ uri: pathToFileURL(dir).href, name: path.basename(dir) || dir }));
}
