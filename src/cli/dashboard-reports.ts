import { commandDirs, loadCommands, type LoadedCommands } from "../skills/commands.js";
import type { DashboardHost } from "../ui/host.js";
import { SLASH_COMMANDS } from "../ui/slash.js";
import { runDoctor } from "./doctor.js";
import { runListCommand } from "./list-commands.js";
import type { CliArgs, MainIo } from "./types.js";

/**
 * /hooks, /tools and /doctor in the dashboard print exactly what `orca hooks`, `orca tools` (its
 * built-in part: the session's MCP servers are shown from the session, not started again) and
 * `orca doctor` print: the same functions, their output caught line by line.
 */
export function dashboardReports(args: CliArgs, io: MainIo, packageDir: string, version: string): NonNullable<DashboardHost["report"]> {
  return async (what) => {
    let text = "";
    // A terminal's stdout, so the commands judge the folder's trust as the dashboard did.
    const stdout = { isTTY: true, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const captured: MainIo = { ...io, stdout, stderr: stdout };
    const run = { ...args, subcommand: what === "doctor" ? ("doctor" as const) : what };
    const code = what === "doctor" ? await runDoctor(run, captured, packageDir, version) : await runListCommand({ ...run, builtinOnly: true }, captured, packageDir);
    const lines = text.replace(/\n$/, "").split("\n");
    return what === "doctor" && code !== 0 ? [...lines, `(orca doctor would exit ${code})`] : lines;
  };
}

/** The custom commands for the dashboard: the workspace's only when the person trusts it. */
export function dashboardCommands(workspace: string, home: string | undefined, trusted: boolean): () => LoadedCommands {
  return () => loadCommands(commandDirs(workspace, home, trusted), SLASH_COMMANDS.map((c) => c.name));
}
