import { EventBus } from "../../src/events/bus.js";
import type { EventInput } from "../../src/events/types.js";
import type { PermissionMode } from "../../src/config/schema.js";
import type { UserInputApi } from "../../src/orchestrator/user-input.js";
import type { AgentSummary, ControlResult, McpServerState, RunResult, SchedulerCounts, SessionApi } from "../../src/orchestrator/types.js";

/**
 * A stand-in for the session in dashboard component tests: a real EventBus the test emits into,
 * runs that stay open until the test (or a cancel) settles them, and a record of cancels.
 */
export class TestSession implements SessionApi {
  readonly id = "sess-1234abcd";
  readonly bus = new EventBus(this.id);
  readonly workspaceRoot = "/tmp/ws";
  readonly rootAgentId = "root";
  /** `@path` and `!command` (a test plugs in the real userInput over a temp folder). */
  input?: UserInputApi;
  readonly runs: string[] = [];
  readonly cancels: (string | undefined)[] = [];
  /** message() calls, as [agentId, text]. */
  readonly messages: [string, string][] = [];
  /** background() calls. */
  readonly backgrounds: string[] = [];
  /** What agents() returns (the dashboard reads `waiting` of the coordinator from it). */
  summaries: AgentSummary[] = [];
  private pending: ((r: RunResult) => void) | undefined;
  private counts: SchedulerCounts = { running: 0, waiting: 0 };
  private schedulerListeners = new Set<(c: SchedulerCounts) => void>();

  get busy(): boolean {
    return this.pending !== undefined;
  }

  run(text: string): Promise<RunResult> {
    this.runs.push(text);
    this.bus.emit({ type: "user_message", agentId: this.rootAgentId, text });
    return new Promise((resolve) => {
      this.pending = resolve;
    });
  }

  /** Settles the open run. */
  finishRun(status: RunResult["status"] = "done", answer = ""): void {
    const resolve = this.pending;
    this.pending = undefined;
    resolve?.({ status, result: "", answer, usage: { input: 0, output: 0, cached: 0 }, durationMs: 1 });
  }

  cancel(scopeId?: string): void {
    this.cancels.push(scopeId);
    if (scopeId === undefined || scopeId === this.rootAgentId) this.finishRun("cancelled");
  }

  message(agentId: string, text: string): ControlResult {
    this.messages.push([agentId, text]);
    return { ok: true };
  }

  background(agentId: string): ControlResult {
    this.backgrounds.push(agentId);
    return { ok: true };
  }

  agents(): AgentSummary[] {
    return this.summaries;
  }

  schedulerCounts(): SchedulerCounts {
    return this.counts;
  }

  setCounts(counts: SchedulerCounts): void {
    this.counts = counts;
    for (const l of this.schedulerListeners) l(counts);
  }

  onSchedulerChange(listener: (counts: SchedulerCounts) => void): () => void {
    this.schedulerListeners.add(listener);
    return () => this.schedulerListeners.delete(listener);
  }

  permissionMode: PermissionMode = "default";
  readonly models: string[] = [];
  compactions = 0;
  mcp: McpServerState[] = [];

  setPermissionMode(mode: PermissionMode): void {
    this.permissionMode = mode;
  }

  get modelName(): string {
    return this.models[this.models.length - 1] ?? "test-model";
  }

  setModel(name: string): void {
    if (name.startsWith("nope/")) throw new Error(`no provider named "nope"`);
    this.models.push(name);
  }

  async compact(): Promise<boolean> {
    this.compactions++;
    return false;
  }

  mcpServers(): McpServerState[] {
    return this.mcp;
  }

  async close(): Promise<void> {}

  emit(event: EventInput): void {
    this.bus.emit(event);
  }

  startAgent(id: string, name: string, label?: string, task = "look around"): void {
    this.emit({ type: "agent_started", agentId: id, parentId: this.rootAgentId, name, label, task, tools: ["read_file"], depth: 1, model: "m", system: "sys" });
  }
}
