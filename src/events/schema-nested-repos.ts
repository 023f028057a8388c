import { z } from "zod";

/**
 * A git repository a sandboxed command (or a file tool) made inside a writable area (`git init sub`, a `.git`
 * written by hand or pointing at one) held something that would run code when the user runs git
 * there, outside the sandbox: a config key off the short list that runs nothing, a hook, a
 * `config.worktree`. orca moved it into the git dir's `orca-quarantine/<time>/` (the repository
 * keeps working); the user is told in one line (tools/sandbox/nested-repos.ts).
 */
export function nestedRepoEventSchemas(base: { ts: z.ZodNumber; sessionId: z.ZodString; agentId: z.ZodString; parentId: z.ZodOptional<z.ZodString> }) {
  return [
    z.object({
      ...base,
      type: z.literal("nested_repo_neutralised"),
      /** The `.git` entry (or bare repository folder), workspace-relative (absolute when outside it). */
      path: z.string(),
      /** The git dir it leads to, absolute. */
      gitDir: z.string(),
      /** What was taken out: config keys, `hooks/<name>`, `config.worktree`, a `config` or `hooks` link. */
      removed: z.array(z.string()),
      /** Where it is kept (absolute); empty when nothing could be moved. */
      quarantine: z.string(),
      /** Set when the git dir could not be changed: why. The user should look at it before running git there. */
      failed: z.string().optional(),
    }),
    /**
     * A symbolic link on the way to a protected path (`~/.cache -> …` above orca's compile cache, a
     * linked `~/.config/orca`), which the sandbox cannot pin, was replaced by a command: orca put it
     * back and moved what stood there aside (tools/sandbox/protected-links.ts).
     */
    z.object({
      ...base,
      type: z.literal("protected_link_restored"),
      /** The link, absolute. */
      path: z.string(),
      /** What it holds. */
      target: z.string(),
      /** Where what had taken its place was moved (absolute); empty when nothing was there. */
      movedTo: z.string(),
      /** Set when the link could not be put back: why. */
      failed: z.string().optional(),
    }),
  ] as const;
}

/** The one line the user reads (the dashboard and the headless stderr alike); the log keeps the event. */
export function nestedRepoNotice(e: { path: string; removed: readonly string[]; quarantine: string; failed?: string }): string {
  if (e.failed) return `${e.path}: a git repository an agent made could not be checked (${e.failed}); look at its config and hooks before you run git there`;
  const what = e.removed.length > 4 ? `${e.removed.slice(0, 4).join(", ")} and ${e.removed.length - 4} more` : e.removed.join(", ");
  return `${e.path}: a git repository an agent made held what would run code when you run git there (${what}); moved to ${e.quarantine}`;
}

/** The one line for a link put back (or not): the dashboard and the headless stderr alike. */
export function linkRestoredNotice(e: { path: string; target: string; movedTo: string; failed?: string }): string {
  if (e.failed) return `${e.path}: a command replaced this link (to ${e.target}), which leads to code or settings orca runs, and it could not be put back (${e.failed}); put it back before you start orca again`;
  const moved = e.movedTo ? `; what a command had put in its place is in ${e.movedTo}` : "";
  return `${e.path}: a command replaced this link, which leads to code or settings orca runs; orca put it back (to ${e.target})${moved}`;
}
