import type { SessionInfo } from "../sessions/store.js";
import { askFullScreen } from "./full-screen.js";
import { SessionPicker } from "./SessionPicker.js";

export interface PickOptions {
  /** Newest first, as listSessions returns them. */
  sessions: readonly SessionInfo[];
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Shortened to ~ in workspace paths; defaults to $HOME. */
  home?: string;
  /** The dashboard comes next on a choice: raw mode stays for it (askFullScreen). */
  handOver?: boolean;
}

/** `orca --resume` without an id: the chosen session's id, or null when the user quits. */
export function pickSession(opts: PickOptions): Promise<string | null> {
  return askFullScreen<string>(
    (done) => <SessionPicker sessions={opts.sessions} home={opts.home ?? process.env.HOME} onDone={done} />,
    opts,
  );
}
