import type { ReviewApi } from "../orchestrator/review-desk.js";
import type { AgentChangeSet, FileChange, RunChangeSet } from "../review/change-set.js";
import type { FileDiff } from "../review/file-diff.js";

import { errorLine } from "../util/text.js";
import { displayLine } from "./format.js";
import { codeLine } from "./review-model.js";
import type { CommandRun } from "./slash-commands.js";
import type { DocLine } from "./state/ui.js";
import { paint } from "./theme.js";

/**
 * /review, /diff and /rewind: the session's change sets as documents in the viewer (each file's
 * diff highlighted, its hunks numbered so a person can reject them one by one), and the person's
 * decisions as command arguments. Everything goes through the session's ReviewApi.
 */

const heading = (text: string): DocLine => ({ text, styled: paint("heading", text, { bold: true }) });
const muted = (text: string): DocLine => ({ text, styled: paint("muted", text) });
const blank: DocLine = { text: "" };

/** A diff's lines, each coloured by what it is; hunks numbered as /review reject counts them. */
export function diffLines(diff: FileDiff): DocLine[] {
  // An agent names its files: a path may carry escape sequences.
  const what = displayLine(`${diff.status} ${diff.path}`);
  if (diff.binary) return [muted(`${what}: binary, no diff shown`)];
  if (diff.unavailable) return [muted(`${what}: no diff — ${diff.unavailable}`)];
  if (!diff.hunks.length) return [muted(`${what}: as it was (nothing left of the change)`)];
  const out: DocLine[] = [heading(`${what} (${diff.hunks.length} hunk${diff.hunks.length === 1 ? "" : "s"})`)];
  for (const h of diff.hunks) {
    const head = `@@ hunk ${h.index + 1}: -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
    out.push({ text: head, styled: paint("diffHunk", head) });
    for (const raw of h.lines) {
      const line = codeLine(raw);
      if (raw.startsWith("+")) out.push({ text: line, styled: paint("diffAdd", line) });
      else if (raw.startsWith("-")) out.push({ text: line, styled: paint("diffDel", line) });
      else out.push({ text: line });
    }
  }
  return out;
}

function agentTitle(a: AgentChangeSet): string {
  return `${a.agentId}${a.label ? ` [${a.label}]` : ""} — ${a.files.length} file${a.files.length === 1 ? "" : "s"}: ${displayLine(a.task).slice(0, 80)}`;
}

/** Files two held worktrees both change: they would conflict, whichever merges second. */
export function worktreeOverlaps(run: RunChangeSet): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const a of run.agents) for (const f of a.files) if (f.worktree) byPath.set(f.path, [...(byPath.get(f.path) ?? []), a.agentId]);
  return new Map([...byPath].filter(([, ids]) => ids.length > 1));
}

/** The review document: every agent that changed files (or only `only`), each file's diff. */
export async function reviewDoc(review: ReviewApi, only?: string): Promise<DocLine[]> {
  const run = review.changeSets();
  const agents = run.agents.filter((a) => a.files.length && (!only || a.agentId === only));
  if (!agents.length) return [muted(only ? `${only} changed no file` : "no agent has changed a file in this session yet")];
  const held = new Set(review.held());
  const overlaps = worktreeOverlaps(run);
  const out: DocLine[] = [];
  for (const a of agents) {
    out.push(heading(agentTitle(a)));
    if (held.has(a.agentId)) out.push(muted(`  held for review (review: ask): /review accept ${a.agentId} merges it`));
    for (const f of a.files) {
      const clash = overlaps.get(f.path)?.filter((id) => id !== a.agentId);
      const warning = displayLine(`  ⚠ ${f.path} is also changed in the worktree of ${clash?.join(", ")}: merging both conflicts`);
      if (clash?.length) out.push({ text: warning, styled: paint("warn", warning) });
      out.push(...diffLines(await review.diff(f)));
    }
    out.push(blank);
  }
  out.push(muted("/review reject AGENT PATH [HUNK,… | all] [-- COMMENT] restores those hunks and sends the comment · /review accept AGENT"));
  return out;
}

/** /diff: the whole session's change against its start. */
export async function sessionDiffDoc(review: ReviewApi): Promise<DocLine[]> {
  const run = review.changeSets();
  if (!run.files.length) return [muted("no file changed in this session yet")];
  const out: DocLine[] = [heading(`The session's change against its start: ${run.files.length} file${run.files.length === 1 ? "" : "s"}`), blank];
  for (const f of run.files) out.push(...diffLines(await review.diff(f)), blank);
  return out;
}

export function checkpointsDoc(review: ReviewApi): DocLine[] {
  const list = review.checkpoints();
  if (!list.length) return [muted("no checkpoint yet: one is taken before each prompt and when each sub-agent starts")];
  const out: DocLine[] = [
    heading("Checkpoints (newest last): /rewind N puts back every file changed since, unless changed outside orca (--force)"),
    muted("/rewind N conversation takes the coordinator back to before that turn's prompt (a turn's checkpoint); /rewind N both does files and conversation"),
  ];
  list.forEach((c, i) => out.push({ text: `${String(i + 1).padStart(3)}  ${c.reason === "turn" ? "turn " : "agent"}  ${displayLine(c.label)}  (${c.id})` }));
  return out;
}

/** `/review reject AGENT PATH [1,3 | all] [-- comment]` → its parts; a string is a usage error. */
export function parseReject(arg: string): { agentId: string; path: string; hunks: "all" | number[]; comment?: string } | string {
  const [head, ...rest] = arg.split(/\s+--\s+/);
  const comment = rest.join(" -- ").trim() || undefined;
  const words = (head ?? "").trim().split(/\s+/).filter(Boolean);
  if (words.length < 2 || words.length > 3) return "usage: /review reject AGENT PATH [HUNK,… | all] [-- COMMENT]";
  const [agentId, path, which = "all"] = words as [string, string, string?];
  if (which === "all") return { agentId, path, hunks: "all", comment };
  const hunks = which.split(",").map((h) => Number(h) - 1);
  if (hunks.some((h) => !Number.isInteger(h) || h < 0)) return `"${which}" is not a list of hunk numbers (1,2) or all`;
  return { agentId, path, hunks, comment };
}

export function fileOf(run: RunChangeSet, agentId: string, path: string): FileChange | string {
  const agent = run.agents.find((a) => a.agentId === agentId);
  if (!agent) return `no agent ${agentId} in this session`;
  const file = agent.files.find((f) => f.path === path);
  return file ?? `${agentId} did not change ${path} (it changed: ${agent.files.map((f) => f.path).join(", ") || "nothing"})`;
}



/**
 * The turn that carries a review to a sub-agent that has ended: the Delegator resumes a finished
 * sub-agent when its parent asks, so the coordinator is told to (and not to make the change itself).
 */
export function askParentToResume(agentId: string, message: string): string {
  return `${message}\n\n(For the coordinator: this is for ${agentId}. Resume it with delegate {"resume": "${agentId}", "task": <this review>} so it revises its own change; do not make the change yourself.)`;
}

/** /review [AGENT]: the review view · /review text [AGENT] · /review accept AGENT · /review reject AGENT PATH [HUNKS | all] [-- COMMENT] */
export function reviewCommand({ arg, ctx, say, open }: CommandRun): void {
  const review = ctx.session.review;
  if (!review) return say("✗ /review is not available here");
  const [verb, ...rest] = arg.split(/\s+/);
  const fail = (error: unknown) => say(`✗ /review: ${errorLine(error)}`);
  if (verb === "accept") {
    const agentId = rest[0];
    if (!agentId) return say("✗ usage: /review accept AGENT");
    review.accept(agentId).then((r) => say(r.ok ? `accepted ${agentId}'s change${r.note ? ` — ${r.note}` : ""}` : `✗ /review accept: ${r.error}`), fail);
    return;
  }
  if (verb === "reject") {
    const parsed = parseReject(rest.join(" "));
    if (typeof parsed === "string") return say(`✗ /review reject: ${parsed}`);
    const file = fileOf(review.changeSets(), parsed.agentId, parsed.path);
    if (typeof file === "string") return say(`✗ /review reject: ${file}`);
    review.reject(parsed.agentId, file, parsed.hunks, parsed.comment).then((r) => {
      if (!r.ok) return say(`✗ /review reject: ${r.error}`);
      const what = parsed.hunks === "all" ? file.path : `hunk ${parsed.hunks.map((h) => h + 1).join(", ")} of ${file.path}`;
      say(`rejected ${what}: restored on disk${parsed.comment ? (r.undelivered ? `; ${parsed.agentId} is not running: the coordinator is asked to resume it with your comment` : `; your comment was sent to ${parsed.agentId}`) : ""}`);
      if (r.undelivered) ctx.submit?.(askParentToResume(parsed.agentId, r.undelivered));
    }, fail);
    return;
  }
  if (verb === "text") {
    reviewDoc(review, rest[0] || undefined).then((lines) => open(rest[0] ? `review ${rest[0]}` : "review", lines), fail);
    return;
  }
  if (verb && !review.changeSets().agents.some((a) => a.agentId === verb)) return say(`✗ /review: no agent ${verb} in this session`);
  ctx.dispatchView({ type: "open", target: { kind: "review", ...(verb ? { agentId: verb, only: true } : {}) } });
}

/** /diff: the session's change against its start. */
export function diffCommand({ ctx, say, open }: CommandRun): void {
  const review = ctx.session.review;
  if (!review) return say("✗ /diff is not available here");
  sessionDiffDoc(review).then((lines) => open("diff", lines), (error: unknown) => say(`✗ /diff: ${errorLine(error)}`));
}

const REWIND_WHAT = ["code", "conversation", "both"] as const;
type RewindWhat = (typeof REWIND_WHAT)[number];

/**
 * /rewind: the checkpoints. /rewind N [code|conversation|both] [--force], as Claude Code's rewind
 * offers: code (the default) puts back every file changed since checkpoint N; conversation takes the
 * coordinator's history back to before that turn's prompt, and the prompt comes back to the input
 * box to edit and send again; both does the two.
 */
export function rewindCommand({ arg, ctx, say, open }: CommandRun): void {
  const review = ctx.session.review;
  if (!review) return say("✗ /rewind is not available here");
  if (!arg) return open("checkpoints", checkpointsDoc(review));
  if (ctx.busy) return say("✗ /rewind: a run is in progress; Esc cancels it first");
  const words = arg.split(/\s+/);
  const force = words.includes("--force");
  // "files" is what orca's own docs call the code half.
  const what: RewindWhat = REWIND_WHAT.find((w) => words.includes(w)) ?? "code";
  const which = words.find((w) => w !== "--force" && w !== "files" && !(REWIND_WHAT as readonly string[]).includes(w)) ?? "";
  const list = review.checkpoints();
  const picked = /^\d+$/.test(which) ? list[Number(which) - 1] : list.find((c) => c.id === which);
  if (!picked) return say(`✗ /rewind: no checkpoint "${which}" (/rewind lists them)`);
  if (what !== "code" && picked.reason !== "turn") return say(`✗ /rewind: checkpoint ${which} is a sub-agent's start; only a turn's checkpoint takes the conversation back (/rewind ${which} rewinds its files)`);
  const files = what === "conversation" ? Promise.resolve(null) : review.rewind(picked.id, force);
  files.then((r) => {
    if (r && "error" in r) return say(`✗ /rewind: ${r.error}`);
    const lines: string[] = [];
    if (r) {
      lines.push(`rewound to ${picked.label}: ${r.restored.length} file${r.restored.length === 1 ? "" : "s"} restored${r.restored.length ? ` (${r.restored.join(", ")})` : ""}`);
      for (const s of r.skipped) lines.push(`  skipped ${s.path}: ${s.why}${s.changedSince ? " (/rewind N --force restores it)" : ""}`);
    }
    if (what !== "code") {
      const c = review.rewindConversation(picked.id);
      if (!c.ok) lines.push(`✗ /rewind: the conversation was not rewound: ${c.error}`);
      else if (c.prompt) ctx.restoreInput?.(c.prompt);
    }
    ctx.store.notices(lines);
  }, (error: unknown) => say(`✗ /rewind: ${errorLine(error)}`));
}
