/**
 * `!command` in the dashboard can be stopped: Esc or Ctrl+C kills its process group, as cancelling
 * an agent's bash call does, instead of leaving it to tools.bash_timeout. The real session (real
 * bwrap) under the real App, so what is checked is the process table, not a flag.
 */
import fs from "node:fs";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { pressKeys } from "../fixtures/ink.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { drawn, orchestra } from "../fixtures/rig-orchestra.js";


/** Processes whose command line is exactly `argv` (read, never signalled, from /proc). */
function running(argv: string[]): number {
  let n = 0;
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") === `${argv.join("\0")}\0`) n++;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return n;
}

for (const [key, name] of [
  ["\u001B", "Esc"],
  ["\u0003", "Ctrl+C"],
] as const) {
  describe(`!command and ${name}`, () => {
    it(`${name} kills the command's process group; the dashboard stays open`, { timeout: 60_000 }, async () => {
      const ws = workspace();
      const server = await scriptedServer([]);
      const setup = await orchestra(ws, server.url);
      const shells: string[] = [];
      setup.session.bus.subscribe((e) => {
        if (e.type === "user_shell") shells.push(e.output);
      });
      const exits: number[] = [];
      const r = drawn(render(<App session={setup.session} approver={new DialogApprover()} onExit={(c) => exits.push(c)} />));
      // A unique sleep (and a child of it in the same group) to find in the process table.
      const seconds = String(3000 + Math.floor(Math.random() * 900));
      await pressKeys(r.stdin, [...`!echo up > up.txt; sleep ${seconds} & sleep ${seconds}; wait`, "\r"]);
      await vi.waitFor(() => expect(fs.existsSync(ws.file("up.txt"))).toBe(true), { timeout: 20_000 });
      await vi.waitFor(() => expect(running(["sleep", seconds])).toBe(2), { timeout: 20_000 });

      await pressKeys(r.stdin, [key]);
      await vi.waitFor(() => expect(shells).toHaveLength(1), { timeout: 20_000 });
      expect(shells[0]).toContain("[cancelled]");
      expect(running(["sleep", seconds])).toBe(0);
      expect(exits).toEqual([]);
    });
  });
}
