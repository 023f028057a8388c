import type { EventOf } from "../events/types.js";
import type { TestRun } from "./test-runners.js";

/**
 * One-line summaries of an agent's evidence, shared by the dashboard's pane, the headless text
 * report and the delegate result a coordinator reads: the same words wherever a person or a
 * model meets them.
 */

/** "vitest: 3 passed, 1 failed" or "pytest" when the runner printed no counts. */
export function testsText(tests: TestRun): string {
  const counts = (["passed", "failed", "skipped"] as const).filter((k) => tests[k] !== undefined).map((k) => `${tests[k]} ${k}`);
  return counts.length ? `${tests.runner}: ${counts.join(", ")}` : tests.runner;
}

/** A command's outcome in a few words: "exit 0 · 1.2 s · vitest: 3 passed". */
export function commandOutcome(c: { exit: number | null; ms: number; tests?: TestRun }): string {
  return [c.exit === null ? "killed" : `exit ${c.exit}`, seconds(c.ms), c.tests ? testsText(c.tests) : ""].filter(Boolean).join(" · ");
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function verifyLine(e: Pick<EventOf<"verify_finished">, "command" | "exitCode" | "durationMs" | "status" | "tests">): { ok: boolean; text: string } {
  const ok = e.status === "ok" && e.exitCode === 0;
  const how = e.status === "ok" || e.status === "error" ? commandOutcome({ exit: e.exitCode, ms: e.durationMs, tests: e.tests }) : e.status;
  return { ok, text: `${ok ? "✓" : "✗"} verify: ${e.command} — ${how}` };
}

/** "change set: 2 files (+12 −3) · 3 commands, tests: vitest: 4 passed · ⚑ 1 flag: tests-claimed-unrun". */
export function changeSetLine(e: Pick<EventOf<"change_set">, "files" | "commands" | "flags">): { ok: boolean; text: string } {
  const added = e.files.reduce((n, f) => n + f.added, 0);
  const removed = e.files.reduce((n, f) => n + f.removed, 0);
  const files = e.files.length ? `${plural(e.files.length, "file")} (+${added} −${removed})` : "no files changed";
  const tests = e.commands.filter((c) => c.tests);
  const lastTests = tests.at(-1)?.tests;
  const parts = [files, plural(e.commands.length, "command"), lastTests ? `tests: ${testsText(lastTests)}` : "no tests run"];
  if (e.flags.length) parts.push(`⚑ ${plural(e.flags.length, "flag")}: ${[...new Set(e.flags.map((f) => f.rule))].join(", ")}`);
  return { ok: e.flags.length === 0, text: `change set: ${parts.join(" · ")}` };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The most commands a delegate result lists: the last ones, where the tests after the last edit are. */
const MAX_COMMANDS = 8;

/**
 * The evidence a coordinator reads with a sub-agent's answer: what the log shows it changed and
 * ran, and what does not match its answer.
 */
export function evidenceText(report: {
  files: readonly { path: string; status: string; added: number; removed: number }[];
  commands: readonly { command: string; exit: number | null; ms: number; tests?: TestRun; verify?: true }[];
  flags: readonly { rule: string; message: string }[];
}): string {
  const lines = ["--- evidence (from the session log, not the agent's words) ---"];
  lines.push(`changed: ${report.files.length ? report.files.map((f) => `${f.path} (${f.status}, +${f.added} −${f.removed})`).join(", ") : "no files"}`);
  const commands = report.commands.slice(-MAX_COMMANDS);
  if (report.commands.length > commands.length) lines.push(`commands: ${report.commands.length - commands.length} earlier ones not listed`);
  for (const c of commands) lines.push(`${c.verify ? "verify" : "ran"}: ${oneLine(c.command)} → ${commandOutcome(c)}`);
  if (!report.commands.some((c) => c.tests)) lines.push("tests: none run");
  lines.push(report.flags.length ? report.flags.map((f) => `⚑ unverified (${f.rule}): ${f.message}`).join("\n") : "flags: none");
  return lines.join("\n");
}

function oneLine(command: string): string {
  const line = command.replace(/\s*\n\s*/g, " ⏎ ");
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
