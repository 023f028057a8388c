import type { EventOf, OrcaEvent, Usage } from "../events/types.js";
import { zeroUsage } from "../events/usage.js";
import { toolStatusOf, type ToolStatus } from "../util/errors.js";
import { testCountsOf, testRunnerOf, type TestRun } from "./test-runners.js";

/**
 * What each agent did besides its files, read from the session log's events: the commands it ran
 * (exit code, duration, which ran tests and what they counted), the `verify:` commands orca ran
 * for it, its task, answer, steps, tokens, cost and time, and when it last changed a file — the
 * moment the evidence rules measure test runs against.
 *
 * Built incrementally (`ingest` each event in log order), so a session keeps one up to date from
 * its bus, and a log read back gives the same answer (`activitiesOf`).
 */

export interface CommandRecord {
  command: string;
  /** Null: killed (timeout, cancel) or never reported. */
  exit: number | null;
  ms: number;
  status: ToolStatus;
  tests?: TestRun;
  /** Run by orca from the agent definition's `verify:`. */
  verify?: true;
  /** Started with run_in_background: it returned at once, its exit code is not known. */
  background?: true;
  /** Its position in the log (event order), to compare with the agent's last edit. */
  at: number;
}

export interface AgentActivity {
  id: string;
  name: string;
  label?: string;
  parentId?: string;
  task: string;
  /** The last run's status; "running" until it ends. */
  status: string;
  /** The last run's final answer. */
  answer: string;
  steps: number;
  usage: Usage;
  commands: CommandRecord[];
  /** The log position of its last file change; -1 when it changed none. */
  lastEditAt: number;
  /** The files its runs reported changed (workspace-relative). */
  filesChanged: string[];
  startedAt?: number;
  finishedAt?: number;
}

/** The bash tool's last line, for logs written before tool_finished carried `exitCode`. */
const EXIT_LINE = /\[exit code: (-?\d+)\]\s*$/;
const CHANGES = new Set(["write", "edit", "bash"]);

export class ActivityLedger {
  private readonly agents = new Map<string, AgentActivity>();
  /** bash calls the agents asked for, by call id, until their result arrives. */
  private readonly pending = new Map<string, { command: string; background: boolean }>();
  private seq = 0;

  get(agentId: string): AgentActivity | undefined {
    return this.agents.get(agentId);
  }

  all(): AgentActivity[] {
    return [...this.agents.values()];
  }

  ingest(event: OrcaEvent): void {
    const at = this.seq++;
    switch (event.type) {
      case "agent_started": {
        const known = this.agents.get(event.agentId);
        const agent = known ?? this.agent(event.agentId, event.name, event.parentId);
        agent.name = event.name;
        agent.label = event.label ?? agent.label;
        if (!known || !agent.task) agent.task = event.task;
        agent.status = "running";
        agent.startedAt ??= event.ts;
        return;
      }
      case "assistant_message":
        for (const call of event.toolCalls) {
          const args = call.args as { command?: unknown; run_in_background?: unknown } | undefined;
          if (call.name === "bash" && typeof args?.command === "string") this.pending.set(call.id, { command: args.command, background: args.run_in_background === true });
        }
        return;
      case "tool_finished":
        this.onToolFinished(event, at);
        return;
      case "file_write":
        if (event.callId) this.agent(event.agentId).lastEditAt = at;
        return;
      case "usage": {
        const usage = this.agent(event.agentId).usage;
        usage.input += event.input;
        usage.output += event.output;
        usage.cached += event.cached;
        if (event.cost !== undefined) usage.cost = (usage.cost ?? 0) + event.cost;
        return;
      }
      case "agent_finished": {
        const agent = this.agent(event.agentId);
        agent.status = event.status;
        agent.answer = event.result;
        agent.steps += event.steps;
        agent.finishedAt = event.ts;
        agent.filesChanged = [...new Set([...agent.filesChanged, ...event.filesChanged])];
        return;
      }
      case "verify_finished":
        this.agent(event.agentId).commands.push({
          command: event.command,
          exit: event.exitCode,
          ms: event.durationMs,
          status: event.status,
          ...(event.tests ? { tests: event.tests } : {}),
          verify: true,
          at,
        });
        return;
      default:
        return;
    }
  }

  private onToolFinished(event: EventOf<"tool_finished">, at: number): void {
    const agent = this.agent(event.agentId);
    if (event.versions?.some((v) => CHANGES.has(v.change))) agent.lastEditAt = at;
    const call = this.pending.get(event.callId);
    if (!call) return;
    this.pending.delete(event.callId);
    const status = event.status ?? toolStatusOf(event);
    // A command refused before it ran is not one the agent ran.
    if (status === "denied") return;
    const exit = event.exitCode !== undefined ? event.exitCode : exitFromContent(event.content);
    const runner = call.background ? null : testRunnerOf(call.command);
    const record: CommandRecord = { command: call.command, exit: call.background ? null : exit, ms: event.durationMs, status, at };
    if (runner) record.tests = { runner, ...(testCountsOf(runner, event.content) ?? {}) };
    if (call.background) record.background = true;
    agent.commands.push(record);
  }

  private agent(id: string, name = id.replace(/-\d+$/, ""), parentId?: string): AgentActivity {
    let agent = this.agents.get(id);
    if (!agent) {
      agent = { id, name, parentId, task: "", status: "running", answer: "", steps: 0, usage: zeroUsage(), commands: [], lastEditAt: -1, filesChanged: [] };
      this.agents.set(id, agent);
    }
    return agent;
  }
}

function exitFromContent(content: string): number | null {
  const m = EXIT_LINE.exec(content);
  return m ? Number(m[1]) : null;
}


/** Every agent's activity in a whole log. */
export function activitiesOf(events: Iterable<OrcaEvent>): ActivityLedger {
  const ledger = new ActivityLedger();
  for (const event of events) ledger.ingest(event);
  return ledger;
}
