import { z } from "zod";
import type { ToolStatus } from "../util/errors.js";
import { inputEventSchemas } from "./schema-input.js";
import { budgetEventSchemas } from "./schema-budget.js";
import { evidenceEventSchemas } from "./schema-evidence.js";
import { reviewEventSchemas } from "./schema-review.js";
import { teamEventSchemas } from "./schema-team.js";
import { nestedRepoEventSchemas } from "./schema-nested-repos.js";

/**
 * The one definition of every event orca emits, as zod schemas. The session log writer, the log
 * reader (resume), `--output-format stream-json` and the dashboard all consume this union; the
 * TypeScript types are in types.ts, the constructors of events with several producers in
 * constructors.ts.
 *
 * A field added to an event must be optional: logs written before it existed are read by resume
 * (tests/integration/old-logs.test.ts reads and resumes a log of each past version).
 */

/**
 * Built on first use, not at import: zod builds each schema eagerly, and this union is ~180 of them,
 * which every start would pay although only the log reader (resume, `orca sessions`) parses events.
 */
function defineEventSchemas() {
  const base = {
    ts: z.number(),
    sessionId: z.string(),
    agentId: z.string(),
    parentId: z.string().optional(),
  };

  const accessSchema = z.union([
    z.object({
      reads: z.array(z.string()),
      writes: z.array(z.string()),
      /** The writes are a command's: they wait for writes and other commands, never for reads (§14). */
      command: z.boolean().optional(),
    }),
    z.literal("exclusive"),
  ]);

  const toolCallSchema = z.object({
    id: z.string(),
    name: z.string(),
    /** The argument string exactly as the model sent it. */
    raw: z.string(),
    /** Parsed arguments; absent when the raw string is not valid JSON. */
    args: z.unknown().optional(),
    parseError: z.string().optional(),
  });

  /**
   * A model's reasoning, kept with the assistant message so it can be sent back as the provider
   * requires (Anthropic refuses a tool round whose signed thinking was dropped). Provider-neutral:
   * a provider that has no use for it ignores it.
   */
  const thinkingBlockSchema = z.object({
    /** The reasoning text; "" when the provider sent it redacted. */
    text: z.string(),
    /** Opaque proof the provider needs to accept the block back (Anthropic's signature). */
    signature: z.string().optional(),
    /** Encrypted reasoning sent in place of text (Anthropic's redacted_thinking). */
    redacted: z.string().optional(),
    /** The model that produced it: reasoning is tied to its model, so no other model is sent it. */
    model: z.string().optional(),
    /** How many of the message's tool calls preceded it; keeps reasoning interleaved with tool calls. */
    afterToolCalls: z.number().int().min(0).optional(),
  });

  const usageSchema = z.object({
    /** Every prompt token, cached ones included. */
    input: z.number(),
    output: z.number(),
    /** Prompt tokens read from the provider's cache. */
    cached: z.number(),
    /** Prompt tokens written to the provider's cache (Anthropic). */
    cacheWrite: z.number().optional(),
    cost: z.number().optional(),
  });

  /** How a file a tool call touched ended up (read versions; see tools/versions.ts). */
  const fileTouchSchema = z.object({
    /** Workspace-relative (absolute when outside the workspace). */
    path: z.string(),
    /** Content hash after the call; null when the file was deleted. */
    hash: z.string().nullable(),
    /**
     * read: the agent saw this version · write/edit/bash: the agent changed the file to it ·
     * outside: the call found it changed outside orca's tools (the agent did not see it).
     */
    change: z.enum(["read", "write", "edit", "bash", "outside"]),
    /** The agent changed a version it had not seen whole: it knows its own change, not the rest. */
    partial: z.boolean().optional(),
    created: z.boolean().optional(),
  });

  /** Who last changed a file: an agent (through which tool) or something outside orca's tools. */
  const changeSourceSchema = z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("agent"),
      agentId: z.string(),
      /** The agent as the user knows it: id and label ("editor-2 [fix subtract]"). */
      name: z.string(),
      via: z.enum(["write_file", "edit_file", "bash"]),
    }),
    z.object({ kind: z.literal("outside") }),
  ]);

  /** ok · error: it ran and failed · denied: refused by policy · cancelled · timeout: killed at its time limit. */
  const toolStatusSchema = z.enum(["ok", "error", "denied", "cancelled", "timeout"] as const satisfies readonly ToolStatus[]);

  const agentStatusSchema = z.enum(["done", "failed", "cancelled", "max_steps", "budget", "loop"]);

  const sessionStatusSchema = z.enum(["done", "failed", "cancelled", "max_steps", "budget", "loop", "idle"]);

  const eventSchema = z.discriminatedUnion("type", [
    z.object({
      ...base,
      type: z.literal("session_started"),
      workspace: z.string(),
      model: z.string(),
      configPath: z.string().nullable(),
      version: z.string(),
      resumedFrom: z.string().optional(),
      /**
       * This run logs a file_write before each write_file / edit_file lands, so an interrupted
       * call of this run without one never touched its file. Absent in older logs.
       */
      writesAnnounced: z.literal(true).optional(),
      /**
       * What this resume told the model for calls the previous run left unfinished, where it could
       * tell more than "result unknown" (a write applied or not): later resumes tell the same.
       */
      interrupted: z.array(z.object({ callId: z.string(), result: z.string() })).optional(),
    }),
    /** `from`: another agent's message_agent, delivered (shown when sent, as agent_message), never the person's words. */
    z.object({ ...base, type: z.literal("user_message"), text: z.string(), from: z.string().optional() }),
    z.object({
      ...base,
      type: z.literal("agent_started"),
      name: z.string(),
      label: z.string().optional(),
      task: z.string(),
      tools: z.array(z.string()),
      depth: z.number(),
      model: z.string(),
      /** The full system prompt, so a resumed session rebuilds exactly what the model saw. */
      system: z.string(),
    }),
    z.object({
      ...base,
      type: z.literal("model_request"),
      step: z.number(),
      messageCount: z.number(),
      tokenEstimate: z.number(),
    }),
    z.object({ ...base, type: z.literal("text_delta"), text: z.string() }),
    z.object({ ...base, type: z.literal("thinking_delta"), text: z.string() }),
    z.object({
      ...base,
      type: z.literal("assistant_message"),
      content: z.string(),
      toolCalls: z.array(toolCallSchema),
      /** Present only when the model's provider returned reasoning it needs back. */
      thinking: z.array(thinkingBlockSchema).optional(),
    }),
    z.object({
      ...base,
      type: z.literal("tool_queued"),
      callId: z.string(),
      name: z.string(),
      args: z.unknown(),
      access: accessSchema,
      waitsFor: z.array(z.string()),
    }),
    z.object({ ...base, type: z.literal("tool_started"), callId: z.string(), name: z.string() }),
    z.object({
      ...base,
      type: z.literal("tool_finished"),
      callId: z.string(),
      name: z.string(),
      /** True exactly when status is ok (kept for consumers that read only it). */
      ok: z.boolean(),
      /** How the call ended; absent in logs written before it existed (derive it from ok: toolStatusOf). */
      status: toolStatusSchema.optional(),
      /** Exactly what the model receives as the tool result. */
      content: z.string(),
      error: z.string().optional(),
      durationMs: z.number(),
      /** The unified diff a file tool applied (write_file, edit_file), for the dashboard. */
      diff: z.string().optional(),
      /** The file versions this call saw or made, so a resumed session rebuilds every agent's. */
      versions: z.array(fileTouchSchema).optional(),
      /** A command's exit code (bash), for change sets; absent for other tools and in older logs. */
      exitCode: z.number().nullable().optional(),
    }),
    z.object({
      ...base,
      /**
       * A file is about to be replaced: logged after the checks, before its temporary file is
       * created and renamed over it. Resume tells an interrupted write "applied" or "not applied"
       * from the file's hash; the next start removes `temp` if a crash left it.
       */
      type: z.literal("file_write"),
      /** The call that writes (absent for orca's own writes, such as a merge-back). */
      callId: z.string().optional(),
      tool: z.string(),
      /** Workspace-relative (absolute when outside the workspace root). */
      path: z.string(),
      /** Content hash before (null: the file did not exist) and after the write. */
      before: z.string().nullable(),
      after: z.string(),
      /** The temporary file, in the same folder as `path`. */
      temp: z.string(),
    }),
    z.object({
      ...base,
      type: z.literal("write_conflict"),
      callId: z.string(),
      tool: z.string(),
      /** Workspace-relative. */
      path: z.string(),
      /** stale: changed since the agent saw it · unread: the agent never saw it whole. */
      reason: z.enum(["stale", "unread"]),
      changedBy: changeSourceSchema.optional(),
      changedAt: z.number().optional(),
      /** The refusal exactly as the agent reads it. */
      message: z.string(),
    }),
    z.object({
      ...base,
      type: z.literal("permission_requested"),
      callId: z.string(),
      tool: z.string(),
      args: z.unknown(),
      /** The rule that asked, or the mode that asked ("mode:default"). */
      rule: z.string(),
    }),
    z.object({
      ...base,
      type: z.literal("permission_decided"),
      callId: z.string(),
      tool: z.string(),
      rule: z.string(),
      decision: z.enum(["allow", "deny"]),
      scope: z.enum(["once", "always"]),
      by: z.enum(["rule", "mode", "user", "headless", "skill", "hook"]),
      reason: z.string().optional(),
      /** Whether the call will run in the OS sandbox (a bash command allowed into one). */
      sandboxed: z.boolean().optional(),
      /** For a bash command allowed to run: `read-only`, `workspace-write`, or `none` (outside any sandbox). */
      sandbox: z.enum(["read-only", "workspace-write", "none"]).optional(),
    }),
    z.object({
      ...base,
      type: z.literal("agent_finished"),
      status: agentStatusSchema,
      result: z.string(),
      steps: z.number(),
      usage: usageSchema,
      filesChanged: z.array(z.string()),
    }),
    // estimated: the server sent no usage report; orca counted the request and what it streamed (agent/unreported-usage.ts).
    z.object({ ...base, type: z.literal("usage"), ...usageSchema.shape, estimated: z.boolean().optional() }),
    z.object({
      ...base,
      type: z.literal("compacted"),
      beforeTokens: z.number(),
      afterTokens: z.number(),
      roundsSummarised: z.number(),
      /** The summary that replaced the old rounds (empty when they were dropped). */
      summary: z.string(),
      /** How many history messages after the system prompt and first task were replaced. */
      replacedMessages: z.number(),
    }),
    z.object({
      ...base,
      type: z.literal("hook_started"),
      /** Pairs this run with its hook_finished: several hooks run at once. */
      hookId: z.string(),
      /** The lifecycle event, as Claude Code names it: "PreToolUse", "SubagentStop", … */
      hookEvent: z.string(),
      /** The command as configured (with its args, when it has any). */
      command: z.string(),
      /** Where it is configured: a config.yaml or a Claude Code settings.json path. */
      source: z.string(),
      /** The tool call it runs for, on tool events, so the dashboard can show it in the call's row. */
      callId: z.string().optional(),
    }),
    z.object({
      ...base,
      type: z.literal("hook_finished"),
      hookId: z.string(),
      hookEvent: z.string(),
      command: z.string(),
      callId: z.string().optional(),
      /** Null when the hook was killed (timeout, cancel) or could not start. */
      exitCode: z.number().nullable(),
      durationMs: z.number(),
      /** ok: it ran and answered; error: a non-blocking failure (the action went on); timeout/cancelled: killed, no decision. */
      outcome: z.enum(["ok", "error", "timeout", "cancelled"]),
      /** What this hook decided: a tool call's permission, a block, `continue: false` (stop), or nothing. */
      decision: z.enum(["allow", "deny", "ask", "block", "stop", "none"]),
      /** The reason of a deny or block, or the first line of stderr of a failure. */
      message: z.string().optional(),
      /** The hook's systemMessage, meant for the user. */
      systemMessage: z.string().optional(),
    }),
    z.object({
      ...base,
      type: z.literal("mcp_status"),
      server: z.string(),
      /** restarted: connected again after it had failed or stopped. */
      state: z.enum(["connecting", "connected", "failed", "restarted", "disabled"]),
      /** How many tools it offers (connected, restarted). */
      tools: z.number().optional(),
      /** Why it failed, one line. */
      reason: z.string().optional(),
    }),
    z.object({
      ...base,
      type: z.literal("agent_backgrounded"),
      /** delegate: started with `background: true`; user: sent to the background while it ran (Ctrl+B). */
      by: z.enum(["delegate", "user"]),
    }),
    z.object({
      ...base,
      type: z.literal("agent_waiting"),
      /** The agent ended its turn but stays open for these background sub-agents' results. */
      waitingFor: z.array(z.string()),
    }),
    z.object({
      ...base,
      type: z.literal("worktree"),
      /**
       * created: the agent works in its own git worktree; merged: its changes were applied to the
       * main tree; conflict: they were not (files named), the branch is kept; kept: it did not end
       * done, the worktree stays; unavailable: no git repository, it shares the workspace; failed:
       * orca could not create, commit or merge it.
       */
      action: z.enum(["created", "merged", "conflict", "kept", "unavailable", "failed"]),
      path: z.string().optional(),
      branch: z.string().optional(),
      /** Workspace-relative: the merged files, or the conflicting ones. */
      files: z.array(z.string()).optional(),
      message: z.string(),
    }),
    z.object({
      ...base,
      type: z.literal("process_started"),
      /**
       * The process group orca started (its leader's pid; for a sandboxed command, bwrap's host pid,
       * whose group takes the sandbox with it). For an MCP stdio server, which shares orca's group,
       * the server's pid alone (group false).
       */
      pgid: z.number(),
      /** The leader's start time (`<boot id>:<ticks>`, util/proc.ts), so a reused pid is never taken for it; null where unknown. */
      startTime: z.string().nullable(),
      /** bash: a foreground command · background: a run_in_background shell · hook · mcp: a stdio server. */
      kind: z.enum(["bash", "background", "hook", "mcp"]),
      /** What it runs, for the line that reports it. */
      command: z.string(),
      /** False when pgid is one process, not a group. */
      group: z.boolean().optional(),
    }),
    z.object({
      ...base,
      type: z.literal("process_ended"),
      pgid: z.number(),
      /** Set when a later orca ended it: it had outlived the run that started it (a crash). */
      reaped: z.boolean().optional(),
      /** On a reaped group, what it was, for whoever reads the event alone. */
      kind: z.enum(["bash", "background", "hook", "mcp"]).optional(),
      command: z.string().optional(),
      /** False when pgid was one process, not a group (as in its process_started). */
      group: z.boolean().optional(),
    }),
    z.object({ ...base, type: z.literal("error"), where: z.string(), message: z.string() }),
    z.object({
      ...base,
      type: z.literal("session_finished"),
      status: sessionStatusSchema,
      durationMs: z.number(),
    }),
    ...inputEventSchemas(base),
    ...budgetEventSchemas(base),
    ...reviewEventSchemas(base),
    ...evidenceEventSchemas(base, usageSchema),
    ...teamEventSchemas(base), ...nestedRepoEventSchemas(base),
  ]);
  return { accessSchema, toolCallSchema, thinkingBlockSchema, usageSchema, fileTouchSchema, changeSourceSchema, toolStatusSchema, agentStatusSchema, sessionStatusSchema, eventSchema };
}

export type EventSchemas = ReturnType<typeof defineEventSchemas>;
let schemas: EventSchemas | undefined;

/** The schema of one log line: every event orca emits. */
export function eventSchema(): EventSchemas["eventSchema"] {
  return (schemas ??= defineEventSchemas()).eventSchema;
}
