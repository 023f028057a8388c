/**
 * `npm run bench -- review`: what change sets and rewinds cost (issue #28).
 * `change_set_ms`: an agent's change set from a session log of 1,000 of its events (read_file /
 * edit_file rounds over 20 files of 200 lines: file_write, tool_finished with versions), read and
 * parsed from disk, built, and every file's diff computed from the content store against the file
 * on disk — what `/review` and the headless report do. `rewind_ms`: a rewind of 100 files changed
 * after a checkpoint: the plan from the log, then each file checked and restored through the
 * confined walk (temporary file, fsync, rename). `view_rows_ms`: the review view's rows for 3,000
 * files, every diff loaded (what it redoes when a diff lands; keys only slice them). Min/median/max
 * over the rounds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EventInput, OrcaEvent } from "../src/events/types.js";
import { readLog } from "../src/events/log.js";
import { ChangeSetBuilder } from "../src/review/change-set.js";
import { fileDiff } from "../src/review/file-diff.js";
import { rewindPlan } from "../src/review/plans.js";
import { restoreFiles } from "../src/review/restore.js";
import { ContentStore } from "../src/sessions/content-store.js";
import { Workspace } from "../src/tools/workspace.js";
import { contentHash } from "../src/util/content-hash.js";
import { buildRows, fileKey, type DiffSlot } from "../src/ui/review-model.js";
import type { AgentChangeSet } from "../src/review/change-set.js";
import { spread } from "./stats.js";

const ROUNDS = 15;
const FILES = 20;
const LINES = 200;

function stamp(events: EventInput[]): OrcaEvent[] {
  return events.map((e, i) => ({ ...e, ts: 1_000 + i, sessionId: "bench" }) as OrcaEvent);
}

function text(file: number, version: number): string {
  return Array.from({ length: LINES }, (_, line) => `const v${file}_${line} = ${line === (version * 7) % LINES ? version : line};`).join("\n") + "\n";
}

/** A log of exactly 1,000 events of editor-1: rounds of read, file_write and tool_finished. */
function editorLog(dir: string, store: ContentStore): string {
  const events: EventInput[] = [{ type: "agent_started", agentId: "editor-1", parentId: "main", name: "editor", task: "edit", tools: [], depth: 1, model: "m", system: "" }];
  const versions = Array.from({ length: FILES }, () => 0);
  for (let i = 0; events.length + 3 <= 1_000; i++) {
    const f = i % FILES;
    const before = text(f, versions[f]!);
    const after = text(f, ++versions[f]!);
    store.keep(before);
    store.keep(after);
    const p = `src/file${f}.ts`;
    events.push({ type: "tool_finished", agentId: "editor-1", callId: `r${i}`, name: "read_file", ok: true, content: "", durationMs: 1, versions: [{ path: p, hash: contentHash(before), change: "read" }] });
    events.push({ type: "file_write", agentId: "editor-1", callId: `w${i}`, tool: "edit_file", path: p, before: contentHash(before), after: contentHash(after), temp: `${p}.tmp` });
    events.push({ type: "tool_finished", agentId: "editor-1", callId: `w${i}`, name: "edit_file", ok: true, content: "", durationMs: 1, versions: [{ path: p, hash: contentHash(after), change: "edit" }] });
  }
  while (events.length < 1_000) events.push({ type: "text_delta", agentId: "editor-1", text: "." });
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  for (let f = 0; f < FILES; f++) fs.writeFileSync(path.join(dir, `src/file${f}.ts`), text(f, versions[f]!));
  const file = path.join(dir, "log.jsonl");
  fs.writeFileSync(file, stamp(events).map((e) => JSON.stringify(e)).join("\n") + "\n");
  return file;
}

/** The change set and its diffs from events already read (the dashboard's case; readMs: reading the log first, the headless case). */
function changeSetOnce(log: string, dir: string, store: ContentStore): { ms: number; readMs: number } {
  const read = performance.now();
  const events = readLog(log).events;
  const started = performance.now();
  const builder = new ChangeSetBuilder();
  for (const e of events) builder.add(e);
  const set = builder.agent("editor-1")!;
  let hunks = 0;
  for (const f of set.files) hunks += fileDiff(f, store, fs.readFileSync(path.join(dir, f.path))).hunks.length;
  const ms = performance.now() - started;
  if (set.files.length !== FILES || hunks === 0) throw new Error(`change set has ${set.files.length} files, ${hunks} hunks`);
  return { ms, readMs: started - read };
}

/** 100 files changed after a checkpoint, on disk and in the log; returns the builder. */
function hundredChanged(dir: string, store: ContentStore, round: number): ChangeSetBuilder {
  const events: EventInput[] = [{ type: "checkpoint", agentId: "main", id: "turn-1", reason: "turn", label: "bench" }];
  for (let f = 0; f < 100; f++) {
    const before = `round ${round} file ${f} before\n`.repeat(40);
    const after = `round ${round} file ${f} after\n`.repeat(40);
    store.keep(before);
    store.keep(after);
    fs.writeFileSync(path.join(dir, `f${f}.txt`), after);
    events.push({ type: "file_write", agentId: "main", tool: "merge_worktree", path: `f${f}.txt`, before: contentHash(before), after: contentHash(after), temp: "t" });
  }
  const builder = new ChangeSetBuilder();
  for (const e of stamp(events)) builder.add(e);
  return builder;
}

/** The review view's rows of one agent's 3,000 changed files, each diff loaded (one hunk of 8 lines). */
function viewRowsOnce(): number {
  const files = Array.from({ length: 3_000 }, (_, i) => ({ path: `src/f${i}.ts`, status: "modified" as const, before: "a", after: "b", tools: ["edit_file" as const], changes: 1, firstAt: 0, lastAt: 0 }));
  const agent: AgentChangeSet = { agentId: "editor-1", name: "editor", task: "all", startedAt: 0, files };
  const lines = [" a", " b", " c", "-d", "+e", " f", " g", " h"];
  const diffs = new Map<string, DiffSlot>(files.map((f) => [fileKey("editor-1", f.path), { path: f.path, status: f.status, text: "x", binary: false, hunks: [{ index: 0, oldStart: 1, oldLines: 7, newStart: 1, newLines: 7, lines }] }]));
  const started = performance.now();
  const rows = buildRows({ agents: [agent], diffs, folded: new Set(), held: new Set(), overlaps: new Map() });
  const ms = performance.now() - started;
  if (rows.length < 30_000) throw new Error(`only ${rows.length} rows`);
  return ms;
}

export async function run(opts: { json: boolean }): Promise<void> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-review-"));
  try {
    const store = new ContentStore(path.join(base, "store"));
    const csDir = path.join(base, "cs");
    const log = editorLog(csDir, store);
    changeSetOnce(log, csDir, store);
    const changeSet = Array.from({ length: ROUNDS }, () => changeSetOnce(log, csDir, store));

    const ws = path.join(base, "ws");
    fs.mkdirSync(ws);
    const workspace = new Workspace(ws);
    const rewind: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const builder = hundredChanged(ws, store, round);
      const started = performance.now();
      const result = await restoreFiles(rewindPlan(builder, "turn-1")!.items, { workspace, contents: store, agentId: "main", tool: "rewind" });
      const ms = performance.now() - started;
      if (result.restored.length !== 100) throw new Error(`restored ${result.restored.length} of 100: ${JSON.stringify(result.skipped[0])}`);
      if (round > 0) rewind.push(ms);
    }
    viewRowsOnce();
    const viewRows = Array.from({ length: ROUNDS }, viewRowsOnce);
    const results = { change_set_ms: spread(changeSet.map((c) => c.ms), 2), log_read_ms: spread(changeSet.map((c) => c.readMs), 2), rewind_ms: spread(rewind, 1), view_rows_ms: spread(viewRows, 2), events: 1_000, files_in_change_set: FILES, files_rewound: 100 };
    if (opts.json) {
      console.log(JSON.stringify(results));
      return;
    }
    console.log("| measure | min | median | max | n |");
    console.log("|---|---|---|---|---|");
    for (const [name, s] of [
      ["change set of an agent, 1,000 events, with its diffs (ms; limit 50)", results.change_set_ms],
      ["reading and validating that log first (ms; headless)", results.log_read_ms],
      ["rewind of 100 files (ms; limit 200)", results.rewind_ms],
      ["review view's rows, 3,000 files with their diffs (ms; redone when a diff lands)", results.view_rows_ms],
    ] as const) {
      console.log(`| ${name} | ${s.min} | ${s.median} | ${s.max} | ${s.n} |`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}
