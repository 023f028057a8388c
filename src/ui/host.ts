import type { InstructionsReport } from "../config/instructions.js";
import type { OrcaEvent } from "../events/types.js";
import type { SessionApi } from "../orchestrator/types.js";
import type { LoadedCommands } from "../skills/commands.js";
import type { WelcomeInfo } from "./Welcome.js";

/** A session the dashboard switched to, with what to show of its past. */
export interface HostedSession {
  session: SessionApi;
  /** A resumed session's logged events (folded into the view, never re-emitted). */
  replay?: readonly OrcaEvent[];
  notices?: readonly string[];
  /** The welcome screen for a new session (/clear); none for a resumed one. */
  welcome?: WelcomeInfo | null;
}

/**
 * What the dashboard may ask of the program around it (the CLI): what is installed, the logged
 * sessions, and another session. All optional: a dashboard without a host says a command is not
 * available there.
 */
export interface DashboardHost {
  catalog?(): { agents: { name: string; description: string }[]; skills: { name: string; description: string }[] };
  listSessions?(): { id: string; startedAt: number; status: string; firstPrompt: string }[];
  /** The instruction files this session's prompts hold (/memory); `untrusted` when the project's were left out. */
  memory?(): InstructionsReport & { untrusted: boolean };
  /**
   * Closes the current session and starts another: a new one (/clear), or the logged one whose id
   * starts with `resume` (/resume). Rejects with a one-line error (nothing changed then).
   */
  switchSession?(to: { resume?: string }): Promise<HostedSession>;
  /** What `orca hooks`, `orca tools` (built-in tools) and `orca doctor` print, line by line. */
  report?(what: "hooks" | "tools" | "doctor"): Promise<string[]>;
  /** The custom commands of this workspace (when trusted) and of the user; reread at each call. */
  commands?(): LoadedCommands;
}
