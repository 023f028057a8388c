/**
 * `npm run bench -- session`: the session log and context management.
 * - append: events/s through the real SessionLog with its fsync policy (fsync around every tool
 *   call), on the event mix of an agent step: request, streamed deltas, usage, the assistant
 *   message, a tool call queued/started/finished with a 2 KB result.
 * - resume: read a 10,000-event log back and rebuild every agent's history (median of 5).
 * - compaction: the 200-turn scripted conversation on a 4,000-token window; the largest request
 *   that reached the server (summary requests included), as a fraction of the window.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SessionLog } from "../src/events/log.js";
import type { EventInput, OrcaEvent, ToolCall } from "../src/events/types.js";
import { startScriptedServer, systemPrompt, type ScriptedReply } from "../src/model/scripted.js";
import { loadSession } from "../src/sessions/resume-plan.js";
import { tempWorkspace } from "../tests/fixtures/harness.js";
import { testOrchestra } from "../tests/fixtures/orchestra.js";
import { requestTokens } from "../tests/fixtures/requests.js";
import { Redactor } from "../src/events/redact.js";

const WINDOW = 4000;
const COMPACT_AT = 0.8;
const TURNS = 200;
const RESUME_EVENTS = 10_000;

/** The events of one agent step with one tool call: 26 events, two of them fsync'd. */
function stepEvents(agentId: string, n: number, parentId?: string): EventInput[] {
  const base = { agentId, parentId };
  const callId = `call_${agentId}_${n}`;
  const toolCalls: ToolCall[] = [{ id: callId, name: "read_file", raw: `{"path":"src/file${n}.ts"}`, args: { path: `src/file${n}.ts` } }];
  return [
    { ...base, type: "model_request", step: n, messageCount: 2 + n * 2, tokenEstimate: 1000 + n * 300 },
    ...Array.from({ length: 20 }, (): EventInput => ({ ...base, type: "text_delta", text: "Looking at the next " })),
    { ...base, type: "usage", input: 1000 + n * 300, output: 60, cached: 800 },
    { ...base, type: "assistant_message", content: "Looking at the next ".repeat(20), toolCalls },
    { ...base, type: "tool_queued", callId, name: "read_file", args: toolCalls[0]!.args, access: { reads: [`/w/src/file${n}.ts`], writes: [] }, waitsFor: [] },
    { ...base, type: "tool_started", callId, name: "read_file" },
    { ...base, type: "tool_finished", callId, name: "read_file", ok: true, content: "     1\texport const x = 1; // some code here\n".repeat(50), durationMs: 3 },
  ];
}

/** A session of about `count` events: a coordinator delegating to sub-agents that each work for a while. */
function sessionEvents(count: number, workspace: string): OrcaEvent[] {
  const id = "bench-session";
  let ts = Date.now();
  const out: OrcaEvent[] = [];
  const push = (e: EventInput) => out.push({ ...e, ts: ts++, sessionId: id } as OrcaEvent);
  push({ type: "session_started", agentId: "coordinator", workspace, model: "gpt-4.1-mini", configPath: null, version: "bench" });
  push({ type: "user_message", agentId: "coordinator", text: "do the thing" });
  push({ type: "agent_started", agentId: "coordinator", name: "coordinator", task: "do the thing", tools: ["delegate"], depth: 0, model: "gpt-4.1-mini", system: "You coordinate. ".repeat(200) });
  let sub = 0;
  while (out.length < count) {
    sub++;
    const agentId = `explorer-${sub}`;
    const delegateId = `delegate_${sub}`;
    push({ type: "assistant_message", agentId: "coordinator", content: "", toolCalls: [{ id: delegateId, name: "delegate", raw: "{}", args: {} }] });
    push({ type: "tool_started", agentId: "coordinator", callId: delegateId, name: "delegate" });
    push({ type: "agent_started", agentId, parentId: "coordinator", name: "explorer", task: `part ${sub}`, tools: ["read_file"], depth: 1, model: "gpt-4.1-mini", system: "You explore. ".repeat(200) });
    for (let n = 1; n <= 30 && out.length < count; n++) for (const e of stepEvents(agentId, n, "coordinator")) push(e);
    push({ type: "agent_finished", agentId, parentId: "coordinator", status: "done", result: "found it", steps: 30, usage: { input: 1, output: 1, cached: 0 }, filesChanged: [] });
    push({ type: "tool_finished", agentId: "coordinator", callId: delegateId, name: "delegate", ok: true, content: "agent: explorer … found it", durationMs: 10 });
  }
  return out.slice(0, count);
}

function measureAppend(dir: string): { eventsPerS: number; events: number; fsyncs: number } {
  const redactor = new Redactor();
  redactor.add("sk-bench-0123456789abcdef");
  const log = new SessionLog(path.join(dir, "append.jsonl"), redactor);
  const events: OrcaEvent[] = [];
  for (let n = 1; n <= 40; n++) for (const e of stepEvents("coordinator", n)) events.push({ ...e, ts: Date.now(), sessionId: "bench" } as OrcaEvent);
  let appended = 0;
  let fsyncs = 0;
  const started = process.hrtime.bigint();
  const minNs = 2_000_000_000n;
  while (process.hrtime.bigint() - started < minNs || appended < 20_000) {
    for (const e of events) {
      log.append(e);
      if (e.type === "tool_started") fsyncs++; // the SessionLog syncs before each call starts
    }
    appended += events.length;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  log.close();
  return { eventsPerS: Math.round(appended / seconds), events: appended, fsyncs };
}

/** The disk's fsync latency right now: the floor under the append rate, and it varies with load. */
function measureFsyncUs(dir: string): number {
  const fd = fs.openSync(path.join(dir, "fsync.probe"), "a");
  const line = `${"x".repeat(300)}\n`;
  const started = performance.now();
  for (let i = 0; i < 200; i++) {
    fs.writeSync(fd, line);
    fs.fsyncSync(fd);
  }
  const us = ((performance.now() - started) * 1000) / 200;
  fs.closeSync(fd);
  return Math.round(us);
}

function measureResume(dir: string): { ms: number; agents: number } {
  const file = path.join(dir, "resume.jsonl");
  const log = new SessionLog(file);
  for (const e of sessionEvents(RESUME_EVENTS, dir)) log.append(e);
  log.close();
  const times: number[] = [];
  let agents = 0;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const loaded = loadSession(file);
    times.push(performance.now() - t);
    agents = loaded.rebuilt.agents.length;
  }
  times.sort((a, b) => a - b);
  return { ms: Math.round(times[2]! * 10) / 10, agents };
}

async function measureCompaction(): Promise<{ peakFraction: number; requests: number; compactions: number }> {
  let turn = 0;
  let compactions = 0;
  const server = await startScriptedServer((request): ScriptedReply => {
    if (systemPrompt(request).startsWith("You compact the working history")) {
      compactions++;
      return { text: `- Goals: read every file\n- State: read up to turn ${turn}\n- Files: f0.txt … f9.txt, unchanged` };
    }
    turn++;
    if (turn > TURNS) return { text: "finished" };
    return { text: `step ${turn}`, toolCalls: [{ id: `call_${turn}`, name: "read_file", args: { path: `f${turn % 10}.txt` } }] };
  });
  const files: Record<string, string> = {
    ".orca/agents/worker.md": "---\nname: worker\ndescription: Reads files.\ntools: [read_file]\n---\nYou read files one by one.\n",
  };
  for (let i = 0; i < 10; i++) files[`f${i}.txt`] = Array.from({ length: 12 }, (_, l) => `file ${i} line ${l}: the quick brown fox jumps over the lazy dog`).join("\n") + "\n";
  const ws = tempWorkspace(files);
  try {
    const orchestra = await testOrchestra(ws, server.url, {
      agentName: "worker",
      config: `model:\n  context_window: ${WINDOW}\nagent:\n  max_steps: ${TURNS + 5}\ncontext:\n  compact_at: ${COMPACT_AT}\n  keep_rounds: 4\n`,
    });
    const result = await orchestra.session.run("Read every file in order and keep notes.");
    await orchestra.session.close();
    if (result.status !== "done") throw new Error(`compaction run ended ${result.status}: ${result.result}`);
    const peak = Math.max(...server.requests.map(requestTokens));
    return { peakFraction: Math.round((peak / WINDOW) * 1000) / 1000, requests: server.requests.length, compactions };
  } finally {
    await server.close();
    ws.cleanup();
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-session-"));
  try {
    const fsyncUs = measureFsyncUs(dir);
    const append = measureAppend(dir);
    const resume = measureResume(dir);
    const compaction = await measureCompaction();
    const result = {
      append_events_per_s: append.eventsPerS,
      resume_ms_10k: resume.ms,
      peak_request_fraction: compaction.peakFraction,
      compact_at: COMPACT_AT,
    };
    if (json) {
      console.log(JSON.stringify(result));
      return;
    }
    const row = (name: string, value: string, note: string) => console.log(`${name.padEnd(38)} ${value.padStart(10)}   ${note}`);
    console.log(`${"measure".padEnd(38)} ${"value".padStart(10)}`);
    row("log append (events/s, fsync'd)", String(append.eventsPerS), `target ≥ 20000; ${append.events} events, ${append.fsyncs} syncs (one before each tool call); one sync alone ${fsyncUs} µs now`);
    row("resume 10,000 events (ms, median of 5)", String(resume.ms), `target ≤ 300; read + rebuild of ${resume.agents} agents`);
    row("peak request / window", compaction.peakFraction.toFixed(3), `target ≤ ${(COMPACT_AT + 0.05).toFixed(2)}; ${TURNS} turns, window ${WINDOW}, ${compaction.compactions} compactions, ${compaction.requests} requests`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
