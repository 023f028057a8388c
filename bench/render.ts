/**
 * Dashboard render cost: 8 sub-agent panes streaming 50 text deltas a second each, for a few
 * seconds of wall time, through the real store (batched flushes) and Ink (production React).
 * Reports CPU share of one core, writes to stdout, and heap growth (exact with --expose-gc).
 */
import { EventEmitter } from "node:events";
import React from "react";
import { render } from "ink";
import { EventBus } from "../src/events/bus.js";
import type { RunResult, SchedulerCounts, SessionApi } from "../src/orchestrator/types.js";
import { App } from "../src/ui/App.js";
import { DialogApprover } from "../src/ui/dialog-approver.js";

class NullOut extends EventEmitter {
  columns = 160;
  rows = 48;
  isTTY = true;
  frames = 0;
  bytes = 0;
  write = (chunk: string): boolean => {
    this.frames++;
    this.bytes += chunk.length;
    return true;
  };
}

class NullIn extends EventEmitter {
  isTTY = true;
  read = (): null => null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

function session(bus: EventBus): SessionApi {
  const counts: SchedulerCounts = { running: 0, waiting: 0 };
  return {
    id: "bench",
    bus,
    workspaceRoot: "/bench",
    modelName: "bench-model",
    rootAgentId: "root",
    busy: true,
    run: () => new Promise<RunResult>(() => {}),
    cancel: () => {},
    agents: () => [],
    schedulerCounts: () => counts,
    onSchedulerChange: () => () => {},
    close: async () => {},
  };
}

async function scenario(panes: number, rate: number, seconds: number): Promise<Record<string, string | number>> {
  const bus = new EventBus("bench");
  const out = new NullOut();
  const app = render(React.createElement(App, { session: session(bus), approver: new DialogApprover() }), {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: new NullIn() as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  for (let i = 0; i < panes; i++) {
    bus.emit({ type: "agent_started", agentId: `a${i}`, parentId: "root", name: `agent${i}`, label: `pane ${i}`, task: "bench", tools: [], depth: 1, model: "m", system: "" });
  }
  await new Promise((r) => setTimeout(r, 200));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  const start = Date.now();
  let n = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < panes; i++) {
        n++;
        bus.emit({ type: "text_delta", agentId: `a${i}`, text: n % 6 === 0 ? `token ${n} with some words\n` : `token ${n} ` });
      }
      if (Date.now() - start >= seconds * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 1000 / rate);
  });
  const used = process.cpuUsage(cpu);
  const wall = Date.now() - start;
  await new Promise((r) => setTimeout(r, 100));
  gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  app.unmount();
  return {
    panes,
    "updates/s per pane": rate,
    seconds,
    "events": n,
    "cpu % of a core": Number((((used.user + used.system) / 1000 / wall) * 100).toFixed(1)),
    "writes/s": Number((out.frames / (wall / 1000)).toFixed(1)),
    "heap Δ MB": Number(((heapAfter - heapBefore) / 1e6).toFixed(1)),
  };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  process.env.NODE_ENV ??= "production";
  const rows = [await scenario(8, 50, 4), await scenario(2, 50, 2)];
  if (json) {
    console.log(JSON.stringify({ bench: "render", rows }));
    return;
  }
  const keys = Object.keys(rows[0]);
  console.log(`| ${keys.join(" | ")} |`);
  console.log(`|${keys.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${keys.map((k) => row[k]).join(" | ")} |`);
}
