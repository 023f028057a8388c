import { askFullScreen } from "./full-screen.js";
import { TrustPrompt, type TrustAnswer, type TrustItem } from "./TrustPrompt.js";

export type { TrustAnswer, TrustItem };

export interface AskTrustOptions {
  workspace: string;
  settings: readonly TrustItem[];
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Shortened to ~ in the folder's path; defaults to $HOME. */
  home?: string;
  /** The dashboard comes next on an answer: raw mode stays, keys typed after the answer wait for it (askFullScreen). */
  handOver?: boolean;
}

/** The trust prompt: the user's answer, or null when they quit. Remembering it is the caller's job. */
export function askTrust(opts: AskTrustOptions): Promise<TrustAnswer | null> {
  return askFullScreen<TrustAnswer>(
    (done) => <TrustPrompt workspace={opts.workspace} settings={opts.settings} home={opts.home ?? process.env.HOME} onDone={done} />,
    opts,
  );
}
