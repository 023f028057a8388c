import { useMemo, useRef } from "react";
import type { SessionApi } from "../../orchestrator/types.js";
import { expandCommand, type LoadedCommands } from "../../skills/commands.js";
import { errorLine } from "../../util/text.js";
import type { DashboardHost } from "../host.js";
import { mentionsIn } from "../mentions.js";
import { composePrompt, type Attachment, type ShellRun } from "../prompt-context.js";
import type { CustomSlash } from "../slash.js";
import type { DashboardStore } from "../state/store.js";

export interface PromptInput {
  /** The custom commands, as the popup and /help list them. */
  readonly custom: readonly CustomSlash[];
  /** `!command`: runs it in the sandbox, shows its output, and keeps it for the next prompt. */
  shell(command: string): void;
  /** Stops every `!command` still running (their process groups are killed); false when none was. */
  cancelShell(): boolean;
  /** A prompt for the coordinator: `@path`s attached, pending `!command` output before it. */
  send(text: string): void;
  runCustom(name: string, arg: string): void;
}

interface Options {
  session: SessionApi;
  store: DashboardStore;
  host?: DashboardHost;
  submit(text: string, model?: string): void;
  /** A prompt that could not be sent goes back in the box. */
  restore(text: string): void;
}

/**
 * What the input box adds to a plain prompt: `!command`, `@path` attachments and custom commands.
 * The person sees one line per block in the transcript; the model reads the blocks (prompt-context.ts).
 */
export function usePromptInput({ session, store, host, submit, restore }: Options): PromptInput {
  const pendingShell = useRef<ShellRun[]>([]);
  /** One per `!command` still running: Esc or Ctrl+C aborts them. */
  const shellRuns = useRef(new Set<AbortController>());
  const loaded = useMemo<LoadedCommands>(() => host?.commands?.() ?? { commands: [], skipped: [] }, [host, session]);
  const shown = useRef(false);
  if (!shown.current && loaded.skipped.length) {
    shown.current = true;
    store.notices(loaded.skipped.map((s) => `⚠ custom command skipped: ${s}`));
  }
  const custom = useMemo(
    () => loaded.commands.map((c) => ({ name: c.name, args: c.argumentHint, help: `${c.description} (${c.origin === "project" ? "project" : "user"} command)` })),
    [loaded],
  );
  const say = (lines: string[]): void => store.notices(lines);

  /** `typed`: the part the person wrote, whose `@path`s are attached (a custom command's body is not theirs). */
  const send = (text: string, model?: string, typed = text): void => {
    const names = mentionsIn(typed);
    const input = session.input;
    if (!names.length || !input) return flush(text, [], model);
    void Promise.all(names.map((n) => input.attach(n))).then((results) => {
      const attachments: Attachment[] = [];
      const refused: string[] = [];
      results.forEach((r, i) => {
        if (r.ok) attachments.push({ path: r.path, text: r.text });
        // A word that names no file is just a word ("@here"); anything else was refused: not sent.
        else if (!/: no such file$/.test(r.error)) refused.push(r.error);
        else if (names[i]!.includes("/") || names[i]!.includes(".")) say([`@${names[i]}: no such file; sent as text`]);
      });
      if (refused.length) {
        say(refused.map((e) => `✗ not sent: ${e}`));
        return restore(text);
      }
      flush(text, attachments, model);
    });
  };

  const flush = (text: string, attachments: Attachment[], model?: string): void => {
    const shell = pendingShell.current;
    pendingShell.current = [];
    submit(composePrompt(text, shell, attachments), model);
  };

  return {
    custom,
    send,
    shell: (command) => {
      const input = session.input;
      if (!command.trim()) return say(["! needs a command: !ls -la"]);
      if (!input) return say(["✗ !command is not available here"]);
      // The session's user_shell event puts the command and its output in the transcript (and the log).
      // Bounded by tools.bash_timeout, as an agent's command is, or stopped sooner by cancelShell.
      const run = new AbortController();
      shellRuns.current.add(run);
      input
        .shell(command, run.signal)
        .then(
          (done) => void pendingShell.current.push({ command, output: done.output, exitCode: done.exitCode }),
          (error: unknown) => say([`✗ !${command}: ${errorLine(error)}`]),
        )
        .finally(() => shellRuns.current.delete(run));
    },
    cancelShell: () => {
      const runs = [...shellRuns.current];
      for (const run of runs) run.abort();
      return runs.length > 0;
    },
    runCustom: (name, arg) => {
      const command = loaded.commands.find((c) => c.name === name);
      if (!command) return say([`✗ /${name}: the command's file is gone`]);
      // A command file is a prompt, not a choice of files: its own `@path`s stay text, so one cannot
      // attach `@.env` behind the person's back; theirs, in the arguments, are attached.
      send(expandCommand(command, arg), command.model, arg);
    },
  };
}
