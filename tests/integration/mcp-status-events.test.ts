import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventBus } from "../../src/events/bus.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import { McpManager } from "../../src/mcp/manager.js";
import { McpStatusWatcher } from "../../src/orchestrator/mcp-status.js";
import { Workspace } from "../../src/tools/workspace.js";
import { bin, stdio } from "../fixtures/mcp-servers.js";

let manager: McpManager | undefined;
let dir: string | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("mcp_status events from the manager's status channel", () => {
  it("starts from connecting, then says connected with its tool count, failed with the reason, disabled; a late consumer reads the same from the snapshot", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcp-status-"));
    manager = new McpManager({
      workspace: new Workspace(dir),
      servers: {
        memory: stdio(bin("mcp-server-memory"), [], { env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } }),
        missing: stdio("orca-no-such-command-xyz"),
        off: stdio("orca-no-such-command-xyz", [], { enabled: false }),
      },
    });
    const bus = new EventBus("s1");
    const events: OrcaEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const watcher = new McpStatusWatcher(manager, bus.emit, "coordinator");
    // Before anything connected, the snapshot already says where each server stands.
    expect(Object.fromEntries(watcher.snapshot().map((s) => [s.server, s.state]))).toEqual({ memory: "connecting", missing: "connecting", off: "disabled" });
    expect(events).toEqual([]);
    // The session announces once session_started is out: each server as it stands, then each change.
    watcher.announce();
    expect(events.map((e) => e.type === "mcp_status" && `${e.server}:${e.state}`)).toEqual(["memory:connecting", "missing:connecting", "off:disabled"]);
    await manager.start();
    const statuses = () => events.filter((e): e is EventOf<"mcp_status"> => e.type === "mcp_status");
    await vi.waitFor(() => expect(statuses().some((e) => e.server === "memory" && e.state === "connected")).toBe(true), { timeout: 20_000 });
    const memory = statuses().filter((e) => e.server === "memory");
    expect(memory.at(-1)).toMatchObject({ state: "connected", agentId: "coordinator" });
    expect(memory.at(-1)!.tools).toBeGreaterThan(0);
    expect(statuses().find((e) => e.server === "missing" && e.state === "failed")).toMatchObject({ reason: "command not found: orca-no-such-command-xyz" });
    const snapshot = Object.fromEntries(watcher.snapshot().map((s) => [s.server, s]));
    expect(snapshot.off).toMatchObject({ state: "disabled" });
    expect(snapshot.missing).toMatchObject({ state: "failed", reason: "command not found: orca-no-such-command-xyz" });
    expect(snapshot.memory).toMatchObject({ state: "connected" });
    watcher.dispose();
  }, 30_000);
});
