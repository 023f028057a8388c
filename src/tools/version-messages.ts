/**
 * The words of the read-version checks: what an agent reads when its write is refused or its edit
 * landed on a file that had changed, and the one-line forms the delegate result uses.
 */

export type ChangeVia = "write_file" | "edit_file" | "bash";

/** What changed a file last, and when. */
export interface Change {
  by: { kind: "agent"; agentId: string; via: ChangeVia } | { kind: "outside" };
  /** ms since the epoch: our clock for an agent's change, the file's mtime for one from outside. */
  at: number;
  created?: boolean;
  deleted?: boolean;
}

export type NameOf = (agentId: string) => string;

export function formatAgo(ms: number): string {
  if (ms < 1000) return "just now";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s ago`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  return `${Math.round(min / 60)} h ago`;
}

/** "edited by editor-2 [fix subtract] 3 s ago", "changed outside orca (by you or another program) 1 min ago". */
export function describeChange(change: Change, nameOf: NameOf, now: number): string {
  const ago = formatAgo(Math.max(0, now - change.at));
  if (change.by.kind === "outside") {
    return `${change.deleted ? "deleted" : "changed"} outside orca (by you or another program) ${ago}`;
  }
  const who = nameOf(change.by.agentId);
  if (change.deleted) return `deleted by a bash command of ${who} ${ago}`;
  switch (change.by.via) {
    case "edit_file":
      return `edited by ${who} ${ago}`;
    case "write_file":
      return `${change.created ? "created" : "rewritten"} by ${who} ${ago}`;
    case "bash":
      return `changed by a bash command of ${who} ${ago}`;
  }
}

const paren = (change: Change | undefined, nameOf: NameOf, now: number) => (change ? ` (${describeChange(change, nameOf, now)})` : "");

export function staleWriteMessage(rel: string, change: Change | undefined, nameOf: NameOf, now: number): string {
  return `${rel} changed since you read it${paren(change, nameOf, now)}; read it again, then write`;
}

export function unreadWriteMessage(rel: string, change: Change | undefined, nameOf: NameOf, now: number): string {
  return `${rel} already exists and you have not read it${paren(change, nameOf, now)}; read it first, then write (or change part of it with edit_file)`;
}

/** The agent's last edit (or bash command) landed on a version it had not seen whole. */
export function partialWriteMessage(rel: string, over: Change | undefined, nameOf: NameOf, now: number): string {
  if (over) return `${rel} had changed under your last edit${paren(over, nameOf, now)} and you have not read it since; read it again, then write`;
  return `you have changed ${rel} without reading it whole; read it first, then write`;
}

/** Appended to a successful edit_file result when the file had changed since the agent saw it. */
export function mergedEditNote(rel: string, change: Change | undefined, nameOf: NameOf, now: number): string {
  return (
    `Note: ${rel} had changed since you last read it${paren(change, nameOf, now)}. old_string still matched exactly once, ` +
    `so the edit was applied to the current text; read the file again before relying on the rest of it.`
  );
}

/** Appended to an edit_file refusal (old_string not found, or not unique) on a changed file. */
export function staleEditSuffix(change: Change | undefined, nameOf: NameOf, now: number): string {
  return `; it changed since you read it${paren(change, nameOf, now)}`;
}
