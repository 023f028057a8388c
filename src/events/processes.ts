import { processStartTime } from "../util/proc.js";
import { processEnded } from "./constructors.js";
import type { EmitFn, EventInput, EventOf, OrcaEvent } from "./types.js";

export type ProcessKind = EventOf<"process_started">["kind"];

export interface StartedProcess {
  pgid: number;
  kind: ProcessKind;
  command: string;
  /** The agent it runs for; the session's root agent when it runs for none (an MCP server). */
  agentId?: string;
  parentId?: string;
  /** False: `pgid` is one process that shares orca's group (an MCP stdio server). */
  group?: boolean;
}

/**
 * Told of each child process group orca starts and of its end, so the session log names every
 * group a crash could leave running (see sessions/leftovers.ts, which ends them later).
 */
export interface ProcessRecorder {
  started(process: StartedProcess): void;
  ended(pgid: number): void;
}

/** Records processes as process_started / process_ended events. */
export function processRecorder(emit: EmitFn, defaultAgentId: () => string): ProcessRecorder {
  const owners = new Map<number, { agentId: string; parentId?: string }>();
  return {
    started(p) {
      const owner = { agentId: p.agentId ?? defaultAgentId(), ...(p.parentId ? { parentId: p.parentId } : {}) };
      owners.set(p.pgid, owner);
      // Read at once: the leader is alive now (it was just spawned), so this is its start time.
      const startTime = processStartTime(p.pgid);
      emit({ type: "process_started", ...owner, pgid: p.pgid, startTime, kind: p.kind, command: oneLine(p.command), ...(p.group === false ? { group: false } : {}) });
    },
    ended(pgid) {
      const owner = owners.get(pgid);
      if (!owner) return;
      owners.delete(pgid);
      emit(processEnded({ ...owner, pgid }));
    },
  };
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * An emit that holds what it is given until `open()`, then passes it on in order and everything
 * after directly. A session's MCP servers start before the session exists (mcp/stdio-child.ts):
 * their process_started is logged once the log has its session_started, which readers expect first.
 */
export interface HeldEmit {
  emit: EmitFn;
  open(target: EmitFn): void;
  /** Opens onto the bus right after its session_started (once every consumer has seen that). */
  openAfterStart(bus: { emit: EmitFn; subscribe(listener: (event: OrcaEvent) => void): () => void }): void;
}

export function heldEmit(): HeldEmit {
  let held: EventInput[] | null = [];
  let target: EmitFn | undefined;
  const open = (to: EmitFn): void => {
    target = to;
    const pending = held ?? [];
    held = null;
    for (const event of pending) to(event);
  };
  return {
    emit: (event) => (held ? held.push(event) : target?.(event)),
    open,
    openAfterStart(bus) {
      const off = bus.subscribe((event) => {
        if (event.type !== "session_started") return;
        off();
        queueMicrotask(() => open(bus.emit));
      });
    },
  };
}
