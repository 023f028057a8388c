import type { EmitFn, OrcaEvent } from "../events/types.js";
import type { ContentSource } from "../sessions/content-store.js";
import type { ToolResult } from "../tools/tool.js";
import { toolStatusOf } from "../util/errors.js";
import { changeSetEvent, EvidenceLedger, type AgentReport } from "./report.js";
import { testRunOf } from "./test-runners.js";

/** How much of a verify command's output its event keeps: the end, where runners print their summary. */
const OUTPUT_TAIL = 4000;

/** An agent as its end is seen here. */
export interface EndingAgent {
  id: string;
  parentId?: string;
  definition: { verify: readonly string[] };
  /** Its own workspace (an isolated agent's worktree); the session's when absent. */
  workspace?: { root: string };
}

export interface AgentEvidenceDeps {
  contents: ContentSource;
  workspaceRoot: string;
  /** Runs a command as the bash tool runs one, forced into the workspace-write sandbox (refused where there is none). */
  runCommand(command: string, cwd: string, agentId: string, signal: AbortSignal): Promise<ToolResult>;
}

/**
 * The moment an agent ends, as evidence sees it: the `verify:` commands of its definition run
 * (sandboxed, in its workspace, only when it ended done), then its change set's summary is
 * emitted (`change_set`), and its report returned for whoever hands its result on. Everything is
 * read back from the events, which it is fed from the session's bus after the log.
 */
export class AgentEvidence {
  private readonly ledger = new EvidenceLedger();
  private emit: EmitFn = () => {};

  constructor(private readonly deps: AgentEvidenceDeps) {}

  /** An event of the log, in order: a resumed session's old ones first, then the bus's. */
  ingest(event: OrcaEvent): void {
    this.ledger.ingest(event);
  }

  /** Follows a session's events; `emit` is the session's. */
  attach(bus: { subscribe(listener: (event: OrcaEvent) => void): () => void; emit: EmitFn }): void {
    this.emit = bus.emit;
    bus.subscribe((event) => this.ingest(event));
  }

  async agentEnded(agent: EndingAgent, status: string, signal: AbortSignal): Promise<AgentReport | undefined> {
    if (status === "done" && !signal.aborted) {
      for (const command of agent.definition.verify) {
        if (signal.aborted) break;
        await this.verify(agent, command, signal);
      }
    }
    const report = this.ledger.report(agent.id, { contents: this.deps.contents, workspaceRoot: this.deps.workspaceRoot });
    if (report) this.emit(changeSetEvent(report));
    return report;
  }

  /** Every agent's report now (the headless run's end reads them from the log instead). */
  reports(): AgentReport[] {
    return this.ledger.reports({ contents: this.deps.contents, workspaceRoot: this.deps.workspaceRoot });
  }

  private async verify(agent: EndingAgent, command: string, signal: AbortSignal): Promise<void> {
    const startedAt = Date.now();
    const result = await this.deps.runCommand(command, agent.workspace?.root ?? this.deps.workspaceRoot, agent.id, signal);
    const status = toolStatusOf(result);
    const exitCode = typeof result.meta?.exitCode === "number" && (status === "ok" || status === "error") ? result.meta.exitCode : null;
    const output = status === "denied" ? (result.error ?? result.content) : result.content;
    const tests = status === "denied" ? null : testRunOf(command, output);
    this.emit({
      type: "verify_finished",
      agentId: agent.id,
      ...(agent.parentId ? { parentId: agent.parentId } : {}),
      command,
      exitCode,
      status,
      durationMs: Date.now() - startedAt,
      output: output.length > OUTPUT_TAIL ? `…${output.slice(-OUTPUT_TAIL)}` : output,
      ...(tests ? { tests } : {}),
    });
  }
}
