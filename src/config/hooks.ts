import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";

/**
 * The `hooks:` section of config.yaml. It has Claude Code's shape — `{Event: [{matcher, hooks:
 * [{type: command, command, timeout}]}]}` — so the `hooks` object of a Claude Code settings.json
 * can be pasted under it as is (YAML reads JSON). orca's one key of its own, `import_claude`, is
 * lowercase and so never collides with an event name.
 */

/** The lifecycle events orca fires, named as Claude Code names them. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "PreCompact",
  "SessionEnd",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export function isHookEvent(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

export const hookHandlerSchema = builtOnUse(() => z.strictObject({
  /** Only command hooks: http, prompt, agent and mcp_tool hooks are Claude Code's own. */
  type: z.literal("command"),
  /** Run by bash -c; with `args`, the executable spawned directly (no shell). */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Seconds. */
  timeout: z.number().positive().optional(),
  /** A permission rule (`Bash(rm *)`): on tool events the hook runs only for calls it matches. */
  if: z.string().min(1).optional(),
  statusMessage: z.string().optional(),
}));
export type HookHandlerConfig = z.infer<typeof hookHandlerSchema>;

export const hookMatcherGroupSchema = builtOnUse(() => z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(hookHandlerSchema),
}));
export type HookMatcherGroupConfig = z.infer<typeof hookMatcherGroupSchema>;

const eventGroups = () => Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(hookMatcherGroupSchema).optional()])) as Record<
  HookEventName,
  z.ZodOptional<z.ZodArray<typeof hookMatcherGroupSchema>>
>;

// Made on first use, as the rest of the config's schema is (config/schema.ts).
export const hooksConfigSchema = builtOnUse(() => z.strictObject({
  /** Also run the hooks of ~/.claude/settings.json, .claude/settings.json and .claude/settings.local.json. */
  import_claude: z.boolean().default(false),
  ...eventGroups(),
}));
export type HooksConfig = z.infer<typeof hooksConfigSchema>;

/**
 * What a `hooks` object would run, one line per handler, for the trust prompt: the commands as
 * written, so the user can judge them before trusting the folder. Tolerant of any shape.
 */
export function describeHooks(hooks: unknown): string[] {
  const lines: string[] = [];
  for (const [event, groups] of Object.entries(asRecord(hooks))) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const g = asRecord(group);
      const matcher = typeof g.matcher === "string" && g.matcher !== "" && g.matcher !== "*" ? ` [${g.matcher}]` : "";
      for (const handler of Array.isArray(g.hooks) ? g.hooks : []) {
        const h = asRecord(handler);
        const args = Array.isArray(h.args) ? h.args.filter((a): a is string => typeof a === "string") : [];
        const what = typeof h.command === "string" ? `runs ${[h.command, ...args].join(" ")}` : `${String(h.type ?? "?")} hook`;
        lines.push(`hook ${event}${matcher}: ${what}`);
      }
    }
  }
  return lines;
}

/** Whether a settings object (config.yaml or a Claude Code settings.json) defines any hook. */
export function definesHooks(hooks: unknown): boolean {
  return Object.values(asRecord(hooks)).some((groups) => Array.isArray(groups) && groups.length > 0);
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
