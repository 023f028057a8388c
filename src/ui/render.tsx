import { render } from "ink";
import type { OrcaEvent } from "../events/types.js";
import type { SessionApi } from "../orchestrator/types.js";
import { App } from "./App.js";
import type { DialogApprover } from "./dialog-approver.js";
import { openDashboardTerminal } from "./dashboard-terminal.js";
import { takeEarlyFrame } from "./early-frame-slot.js";
import { warmMarkdown } from "./markdown.js";
import { signalExitCode, type Signal } from "./screen.js";
import type { DashboardHost } from "./host.js";
import type { Keymap } from "./keymap.js";
import { DashboardStore } from "./state/store.js";
import { WelcomeContext, type WelcomeInfo } from "./Welcome.js";
import { keepHeapSmall } from "./heap-size.js";
import { terminalSafe } from "../util/terminal-text.js";

export interface DashboardOptions {
  session: SessionApi;
  approver: DialogApprover;
  initialPrompt?: string;
  demo?: boolean;
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /**
   * A resumed session's logged events: the dashboard opens on the old conversation. They are
   * folded into the view only, never re-emitted on the bus (which feeds the log).
   */
  replay?: readonly OrcaEvent[];
  /** Lines orca has to say before anything runs (project settings not loaded, files skipped). */
  notices?: readonly string[];
  /** The keys in force (`keys:` in config applied). */
  keymap?: Keymap;
  /** What the CLI offers the slash commands (/agents, /skills, /sessions, /clear, /resume). */
  host?: DashboardHost;
  /** What orca loaded, shown in the coordinator's pane until the first message. */
  welcome?: WelcomeInfo;
  /** Redraw the whole screen on every frame instead of the changed lines (a benchmark's baseline). */
  fullRedraw?: boolean;
  /** Called once the first frame is out: work the first answer needs that need not hold up the screen. */
  warmUp?: () => void;
}

/**
 * Runs the full-screen dashboard until the user leaves. Exit codes: 0 normally; 130 when the
 * user leaves while a run is in progress (it is cancelled) or right after a cancelled run;
 * 129 / 143 on SIGHUP / SIGTERM. The caller still owns `session.close()`.
 */
export async function runDashboard(opts: DashboardOptions): Promise<{ exitCode: number }> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  const { session, approver } = opts;
  keepHeapSmall();

  // Attach before the first render so no event between here and mount is lost.
  const store = new DashboardStore({ rootAgentId: session.rootAgentId });
  if (opts.replay) store.replay(opts.replay);
  store.notices(opts.notices ?? []);
  store.mcpSnapshot(session.mcpServers());
  const detachBus = store.attach(session.bus);
  const detachScheduler = store.attachScheduler(session);

  let exitCode = 0;
  let lastAnswer = "";
  let instance: ReturnType<typeof render> | undefined;
  let warm: NodeJS.Timeout | undefined;
  const onSignal = (signal: Signal): void => {
    exitCode = signalExitCode(signal);
    session.cancel();
    approver.denyAll("terminal closed");
    instance?.unmount();
  };
  // The first frame may be on screen already (early-frame.tsx): the App's frames are written as changes from it.
  const terminal = takeEarlyFrame(stdout)?.terminal ?? openDashboardTerminal(stdout, stdin, { fullRedraw: opts.fullRedraw });
  terminal.onSignal = onSignal;

  try {
    instance = render(
      <WelcomeContext.Provider value={opts.welcome ?? null}>
        <App
          session={session}
          approver={approver}
          store={store}
          demo={opts.demo}
          initialPrompt={opts.initialPrompt}
          keymap={opts.keymap}
          host={opts.host}
          writeRaw={(sequence) => stdout.write(sequence)}
          onExit={(code, answer) => {
            exitCode = code;
            lastAnswer = answer ?? "";
            if (session.busy) session.cancel();
          }}
        />
      </WelcomeContext.Provider>,
      { stdout: terminal.stream, stdin, exitOnCtrlC: false, patchConsole: false },
    );
    terminal.ink = instance;
    // Off the first answer's path: the markdown renderer (and what the caller asks for, such as
    // the model's HTTP stack) warms up once the first frame is out.
    warm = setTimeout(() => {
      warmMarkdown();
      opts.warmUp?.();
    }, 100);
    warm.unref();
    await instance.waitUntilExit();
    return { exitCode };
  } finally {
    clearTimeout(warm);
    detachBus();
    detachScheduler();
    store.dispose();
    approver.denyAll("dashboard closed");
    terminal.close();
    // The alternate screen took the conversation with it: the last answer stays in the scrollback
    // (not when the terminal closed: there is nothing to write to).
    if (lastAnswer.trim() && exitCode !== 129 && exitCode !== 143) stdout.write(`${terminalSafe(lastAnswer).trimEnd()}\n`);
  }
}
