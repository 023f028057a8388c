import type { Redactor } from "../events/redact.js";
import type { OrcaEvent } from "../events/types.js";
import type { SessionSetup } from "../orchestrator/create.js";
import { SETTLE_DEADLINE_MS } from "../orchestrator/lifecycle.js";
import type { RunResult } from "../orchestrator/types.js";
import { exitCodeFor } from "./args.js";
import { promptFitProblem } from "../model/context-fit.js";
import { contextWindowFor } from "../model/tokens.js";
import { describeReaped } from "../sessions/leftovers.js";
import { CostTally } from "./cost-tally.js";
import { runReport, textReport } from "./run-report.js";
import type { OutputFormat } from "./types.js";
import { linkRestoredNotice, nestedRepoNotice } from "../events/schema-nested-repos.js";

const STUCK = "the run cannot go on: every agent is waiting and nothing is left that could wake one (a bug in orca; the session log has the detail)";

export interface HeadlessIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `orca -p`: runs one prompt to completion and prints it in the chosen format. The result goes to
 * stdout; anything the user must notice (a model error, a step limit) is one line on stderr.
 */
export async function runHeadless(started: SessionSetup, prompt: string, format: OutputFormat, io: HeadlessIo): Promise<number> {
  const { session } = started;
  // Each request is priced by its own model (agents may run on different providers and models).
  const costs = new CostTally();
  const unsubscribe = session.bus.subscribe((event) => {
    printEvent(costs.add(event), format, io, session.rootAgentId, session.redactor);
  });
  for (const warning of started.warnings) io.stderr.write(`orca: warning: ${session.redactor.redactJson(warning)}\n`);

  let interrupted = 0;
  const quit = () => {
    started.killChildrenSync();
    process.exit(130);
  };
  // SIGHUP too: a closed terminal (or a CI runner's hang-up) gets the same orderly end as SIGTERM,
  // which takes the sandbox's stand-ins out of the workspace; Node's default would leave them.
  const onSigint = (signal: NodeJS.Signals) => {
    interrupted++;
    if (interrupted === 1) {
      // Nobody reads a hung-up terminal, and writing to it fails.
      if (signal !== "SIGHUP") io.stderr.write("orca: cancelling… (Ctrl+C again to quit)\n");
      session.cancel();
    } else if (interrupted === 2) {
      // Cut short: every sub-agent that started still gets its SubagentStop, within a deadline.
      void started.hooks.settleSubagents({ deadlineMs: SETTLE_DEADLINE_MS }).finally(quit);
    } else {
      quit();
    }
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  process.on("SIGHUP", onSigint);
  // Node ends a process whose event loop is empty even while a run is unfinished (exit 13, nothing
  // said): the run failed to make progress, and says so instead.
  const onStuck = () => session.failStuckRun(STUCK);
  process.on("beforeExit", onStuck);

  let result: RunResult;
  try {
    // A prompt that cannot fit the model's window is a usage error: said, not sent. Counted with the
    // signal handlers in place, so a Ctrl+C during a long count is not lost.
    const tooLarge = promptFitProblem(prompt, session.modelName, contextWindowFor(session.modelName, started.config.model.context_window));
    if (tooLarge) {
      io.stderr.write(`orca: ${tooLarge}\n`);
      unsubscribe();
      await session.close("idle");
      return 2;
    }
    session.start();
    result = await session.run(prompt);
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    process.off("SIGHUP", onSigint);
    process.off("beforeExit", onStuck);
  }
  const code = exitCodeFor(result.status);
  await session.close(result.status);
  unsubscribe();

  if (format === "text") {
    // stdout carries only the model's words, so `orca -p … > file` never captures an error line;
    // why a run stopped is already on stderr.
    const answer = result.answer ? session.redactor.redactJson(result.answer) : "";
    if (answer) io.stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
    // The report goes to stderr with the other lines for the person: stdout stays the answer alone.
    const report = textReport(runReport(started) ?? []);
    if (report.length) io.stderr.write(`${session.redactor.redactJson(report.join("\n"))}\n`);
  } else if (format === "json") {
    const usage = session.totalUsage();
    const report = runReport(started);
    io.stdout.write(
      `${session.redactor.redactJson(JSON.stringify({
        result: result.result,
        status: result.status,
        session_id: session.id,
        usage: { input_tokens: usage.input, output_tokens: usage.output, cached_tokens: usage.cached, ...costs.totalField() },
        agents: session.agents().map((a) => ({ id: a.id, name: a.name, ...(a.label ? { label: a.label } : {}), parent_id: a.parentId ?? null, status: a.status, steps: a.steps, usage: a.usage, cost_usd: costs.of(a.id) ?? 0 })),
        duration_ms: result.durationMs,
        log: session.logFile,
        ...(report ? { report: { agents: report } } : {}),
        ...(session.board.state.tasks.length ? { tasks: session.board.state.tasks } : {}),
      }))}\n`,
    );
  }
  return code;
}

/**
 * stdout gets the format's output (stream-json: every event); stderr gets, in every format alike,
 * one `orca:` line for each thing the user must notice — an error, a failed MCP server, a hook's
 * message — so CI logs and people reading stderr see a failure whatever program reads stdout.
 */
function printEvent(event: OrcaEvent, format: OutputFormat, io: HeadlessIo, rootId: string, redactor: Redactor): void {
  if (format === "stream-json") io.stdout.write(`${redactor.redactJson(JSON.stringify(event))}\n`);
  const line = stderrLine(event, rootId);
  if (line !== null) io.stderr.write(`${redactor.redactJson(line)}\n`);
}

function stderrLine(event: OrcaEvent, rootId: string): string | null {
  switch (event.type) {
    case "error":
      return `orca: ${event.agentId === rootId ? "" : `${event.agentId}: `}${event.message}`;
    case "process_ended":
      return event.reaped ? `orca: ${describeReaped({ pgid: event.pgid, group: event.group, kind: event.kind ?? "bash", command: event.command ?? "" })}` : null;
    case "task_overlap":
      return `orca: warning: scope overlap: ${event.taskId} and ${event.otherTaskId} (${event.otherAgentId}) both match ${event.files.join(", ")} — ${event.decision}`;
    case "mcp_status":
      return event.state === "failed" ? `orca: warning: MCP server ${event.server} failed: ${event.reason ?? "unknown reason"}` : null;
    case "hook_finished": {
      // A hook's systemMessage is for the user; a hook that failed or was killed is a warning (the action went on).
      const lines: string[] = [];
      if (event.systemMessage) lines.push(`orca: hook ${event.hookEvent}: ${event.systemMessage}`);
      if (event.outcome === "error" || event.outcome === "timeout") lines.push(`orca: warning: hook ${event.hookEvent} (${event.command}): ${event.message ?? event.outcome}`);
      return lines.length ? lines.join("\n") : null;
    }
    case "nested_repo_neutralised":
      return `orca: warning: ${nestedRepoNotice(event)}`;
    case "protected_link_restored":
      return `orca: warning: ${linkRestoredNotice(event)}`;
    case "agent_continued":
      // Said once, for the team: the coordinator's event names every agent continued.
      return event.team ? `orca: the stopped run goes on: ${event.team.join(", ")} continue from their own histories` : null;
    default:
      return null;
  }
}
