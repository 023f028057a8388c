/**
 * `orca --demo` ended by SIGTERM or SIGHUP (a closed terminal, a `kill`): its temporary folder
 * goes with it, and the exit code says which signal. Runs the built CLI in tmux (the dashboard
 * needs a terminal), with TMPDIR pointed at a folder of the test's own so the demo's is the only
 * thing that can appear there.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { demoInTmux, orcaInTmux, tempDir, workspace } from "./rig.js";

const demoFolders = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith("orca-demo-"));

describe("orca --demo ended by a signal", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129], ["SIGINT", 130]] as const) {
    it(`${signal}: exit ${code}, and the demo's temporary folder is gone`, { timeout: 60_000 }, async () => {
      const tmp = tempDir("orca-demo-signal-");
      const t = demoInTmux(`demo-${signal.toLowerCase()}`, { env: [`TMPDIR=${tmp}`, "ORCA_DEMO_SPEED=0.2"] });
      await t.waitFor("the demo running", (s) => s.includes("SCRIPTED DEMO") && s.includes("explorer"), 30_000);
      expect(demoFolders(tmp)).toHaveLength(1);
      // The shell's child is orca's node (env execs it).
      const shell = t.display("#{pane_pid}");
      const orca = Number(execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim());
      process.kill(orca, signal);
      const screen = await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
      expect(screen).toContain(`EXIT=${code}`);
      // Died by the signal, the shell would have said so.
      expect(screen).not.toMatch(/Terminated|Hangup|Interrupt/);
      expect(t.display("#{alternate_on}")).toBe("0");
      expect(demoFolders(tmp)).toEqual([]);
    });
  }
});

describe("the dashboard ended by a signal", () => {
  // SIGINT: kill -INT or a supervisor (raw mode makes Ctrl+C a key); Node's default action would
  // end orca with the alternate screen up and no session_finished.
  // Exit 130 is an interrupt, as a double Ctrl+C: the session ends "cancelled".
  for (const [signal, code, status] of [["SIGTERM", 143, "idle"], ["SIGINT", 130, "cancelled"]] as const) {
    it(`${signal}: the session closes in order (session_finished logged), the terminal is restored, exit ${code}`, { timeout: 60_000 }, async () => {
      const ws = workspace();
      const data = ws.dataDir;
      const t = orcaInTmux(`dash-${signal.toLowerCase()}`, ws, ["--base-url", "http://127.0.0.1:8080/v1"], { rows: 30 });
      await t.waitFor("the welcome screen", (s) => s.includes("workspace") && s.includes("keys"), 30_000);
      const shell = t.display("#{pane_pid}");
      process.kill(Number(execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim()), signal);
      const screen = await t.waitFor("orca's exit", (s) => /EXIT=\d+/.test(s), 30_000);
      expect(screen).toContain(`EXIT=${code}`);
      expect(screen).not.toMatch(/Terminated|Interrupt/);
      expect(t.display("#{alternate_on}")).toBe("0");
      const logs = fs.readdirSync(path.join(data, "sessions")).filter((f) => f.endsWith(".jsonl"));
      expect(logs).toHaveLength(1);
      const last = fs.readFileSync(path.join(data, "sessions", logs[0]!), "utf8").trim().split("\n").at(-1)!;
      expect(JSON.parse(last)).toMatchObject({ type: "session_finished", status });
    });
  }
});
