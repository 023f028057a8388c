import { agentTitle } from "./format.js";
import { Box, useApp } from "ink";
import type React from "react";
import { useCallback, useContext, useEffect, useReducer, useRef, useState } from "react";
import type { SessionApi } from "../orchestrator/types.js";
import type { PermissionAnswer } from "../tools/approver.js";
import { AgentPane } from "./AgentPane.js";
import { CommandPopup } from "./CommandPopup.js";
import { LiveDashboard } from "./Dashboard.js";
import type { DialogApprover } from "./dialog-approver.js";
import type { DashboardHost, HostedSession } from "./host.js";
import { KeyLayerProvider, useKeymap } from "./hooks/key-layers.js";
import { nextMode, runCommand, setMode } from "./slash-commands.js";
import { useDashboardKeys } from "./hooks/use-dashboard-keys.js";
import { useDashboardShape, usePendingPermissions } from "./hooks/use-external.js";
import { useInput, type InputBox as InputBoxApi } from "./hooks/use-input.js";
import { usePromptInput } from "./hooks/use-prompt-input.js";
import { useRunQueue } from "./hooks/use-run-queue.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { FRAME_MS, frameAt, useClock } from "./hooks/use-ticker.js";
import { useZoom } from "./hooks/use-zoom.js";
import { InputBox, inputLineCount } from "./InputBox.js";
import { keyHints, queueNote } from "./key-hints.js";
import { DEFAULT_KEYMAP, type Keymap } from "./keymap.js";
import { computeLayout } from "./layout.js";
import { dialogWantedRows, PermissionDialog } from "./PermissionDialog.js";
import { FanoutDialog, fanoutWantedRows } from "./FanoutDialog.js";
import { parseSlash } from "./slash.js";
import { subAgents } from "./state/reducer.js";
import { DashboardStore } from "./state/store.js";
import { initialView, viewReducer } from "./state/ui.js";
import { Header, KeyHints, QueueLine } from "./StatusBar.js";
import { ReviewView } from "./ReviewView.js";
import { Viewer } from "./Viewer.js";
import { WelcomeContext, type WelcomeInfo } from "./Welcome.js";

/** A second Ctrl+C within this window exits even while a run is being cancelled. */
export const DOUBLE_CTRL_C_MS = 2000;
const POPUP_MAX = 6;

export interface AppProps {
  session: SessionApi;
  approver: DialogApprover;
  /** Created (and attached to the session's bus) by the App when not given. */
  store?: DashboardStore;
  demo?: boolean;
  initialPrompt?: string;
  /** Called once with the exit code when the user leaves; the App then unmounts. */
  onExit?: (code: number, lastAnswer?: string) => void;
  /** The keys in force (`keys:` from config applied); the defaults when absent. */
  keymap?: Keymap;
  /** What the CLI around the dashboard offers: /agents, /skills, /sessions, /clear, /resume. */
  host?: DashboardHost;
  /** Writes to the terminal past the frame (/copy's OSC 52). */
  writeRaw?: (sequence: string) => void;
}

interface Current {
  session: SessionApi;
  store: DashboardStore;
  /** The welcome screen while the coordinator has no conversation (runDashboard's, then each new session's). */
  welcome: WelcomeInfo | null;
  /** Detaches a store the App created itself. */
  detach?: () => void;
}

/** A store following `session` from now on, starting from its logged past when it has one. */
export function createStore(hosted: HostedSession): { store: DashboardStore; detach: () => void } {
  const { session } = hosted;
  const store = new DashboardStore({ rootAgentId: session.rootAgentId });
  if (hosted.replay?.length) store.replay(hosted.replay);
  store.notices(hosted.notices ?? []);
  store.mcpSnapshot(session.mcpServers());
  const off = store.attach(session.bus);
  const offScheduler = store.attachScheduler(session);
  return {
    store,
    detach: () => {
      off();
      offScheduler();
      store.dispose();
    },
  };
}

export function App(props: AppProps): React.JSX.Element {
  return (
    <KeyLayerProvider keymap={props.keymap ?? DEFAULT_KEYMAP}>
      <Main {...props} />
    </KeyLayerProvider>
  );
}

function Main({ session: first, approver, store: given, demo = false, initialPrompt, onExit, host, writeRaw }: AppProps): React.JSX.Element {
  const app = useApp();
  const keymap = useKeymap();
  const firstWelcome = useContext(WelcomeContext);
  // Subscribing during the first render means no event emitted after mount is missed.
  const [current, setCurrent] = useState<Current>(() => {
    if (given) return { session: first, store: given, welcome: firstWelcome };
    const made = createStore({ session: first });
    return { session: first, store: made.store, detach: made.detach, welcome: firstWelcome };
  });
  const currentRef = useRef(current);
  currentRef.current = current;
  useEffect(() => () => currentRef.current.detach?.(), []);
  const { session, store, welcome } = current;

  const [view, dispatchView] = useReducer(viewReducer, initialView);
  // The panes follow the store themselves (LiveDashboard): a streamed delta re-renders only them,
  // unless this component shows a transcript too (zoom, a viewer, a focused pane's selection).
  const state = useDashboardShape(store, Boolean(view.zoom || view.viewer || view.focus !== null));
  const pending = usePendingPermissions(approver);
  const size = useTerminalSize();
  const [, refresh] = useReducer((n: number) => n + 1, 0);
  const [startedAt, setStartedAt] = useState(() => Date.now());
  /** Sub-agents the user asked to stop: "cancelling X…" shows while each still runs. */
  const [cancelling, setCancelling] = useState<Record<string, string>>({});

  const lastCtrlC = useRef(0);
  const exited = useRef(false);
  const runs = useRunQueue(
    session,
    () => exited.current,
    () => (lastCtrlC.current = 0),
  );
  const busy = runs.running || session.busy;
  const anyRunning = busy || Object.keys(state.active).length > 0;
  // Spinners move only while something runs; idle, the header's clock ticks once a second.
  const drawn = useRef(0);
  const now = useClock(anyRunning ? FRAME_MS : 1000, true, drawn);
  const frame = frameAt(now);

  const exit = useCallback(
    (code: number) => {
      if (exited.current) return;
      exited.current = true;
      approver.denyAll();
      onExit?.(code, runs.lastAnswer.current);
      app.exit();
    },
    [app, approver, onExit],
  );

  const switchTo = (next: HostedSession): void => {
    // The mode and model the user chose here go on in the next session (as /clear does in Claude Code).
    const before = currentRef.current.session;
    if (next.session.permissionMode !== before.permissionMode) next.session.setPermissionMode(before.permissionMode);
    if (next.session.modelName !== before.modelName) {
      try {
        next.session.setModel(before.modelName);
      } catch {
        // The other session's provider may not know this model: it keeps its own.
      }
    }
    const made = createStore(next);
    currentRef.current.detach?.();
    setCurrent({ session: next.session, store: made.store, detach: made.detach, welcome: next.welcome ?? null });
    setStartedAt(Date.now());
    setCancelling({});
    dispatchView({ type: "unzoom" });
    dispatchView({ type: "close" });
    dispatchView({ type: "focus", id: null });
  };

  const inputRef = useRef<InputBoxApi | null>(null);
  const prompt = usePromptInput({ session, store, host, submit: runs.submit, restore: (text) => inputRef.current?.restore(text) });
  const lastAnswer = (): string => runs.lastAnswer.current;
  const commandContext = { session, store, host, keymap, busy, dispatchView, refresh, exit, switchTo, lastAnswer, writeRaw, runCustom: prompt.runCustom, custom: prompt.custom, submit: runs.submit, restoreInput: (text: string) => inputRef.current?.restore(text) };
  const agents = subAgents(state);
  const focusAgent = view.focus ? state.agents[view.focus] : undefined;
  const focus = focusAgent ? view.focus : null;
  // A running sub-agent with focus is who the input box talks to: Enter queues a message for it.
  const addressed = focus !== null && focusAgent?.status === "running" ? focusAgent : undefined;
  const addressedAs = addressed ? agentTitle(addressed) : undefined;
  /** Enter: a /command; a message for the addressed sub-agent; a message waking the coordinator; else a prompt. */
  const onSubmit = (text: string, shown?: string): boolean => {
    const parsed = parseSlash(text, prompt.custom);
    if (parsed) {
      runCommand(parsed, commandContext);
      return true;
    }
    if (text.startsWith("!")) {
      prompt.shell(text.slice(1).trim());
      return true;
    }
    if (shown) store.showAs(text, shown);
    if (addressed) {
      const sent = session.message(addressed.id, text);
      runs.setNotice(sent.ok ? `sent to ${addressed.name}: it reads it before its next step` : sent.error);
      return sent.ok;
    }
    // The coordinator has ended its turn and waits for background sub-agents: the message wakes it.
    if ((runs.runningRef.current || session.busy) && session.agents().some((a) => a.id === session.rootAgentId && a.waiting)) {
      if (session.message(session.rootAgentId, text).ok) return true;
    }
    prompt.send(text);
    return true;
  };
  const input = useInput({ submit: onSubmit, paneFocused: focus !== null, custom: prompt.custom, mentions: session.input?.mentions, onKey: () => runs.notice && runs.setNotice(undefined) });
  inputRef.current = input;

  const submitRef = useRef(runs.submit);
  submitRef.current = runs.submit;
  useEffect(() => {
    if (initialPrompt?.trim()) submitRef.current(initialPrompt);
  }, [initialPrompt]);
  // A resumed run that stopped with sub-agents at work goes on as soon as it opens (--no-continue: it does not).
  useEffect(() => {
    if (session.continuing?.length) submitRef.current(null);
  }, [session]);

  const head = pending[0];
  const zoomAgent = view.zoom ? state.agents[view.zoom] : undefined;
  const layout = computeLayout({
    columns: size.columns,
    rows: size.rows,
    inputLines: inputLineCount(input.editor.text, size.columns, addressedAs),
    agents: agents.map((a) => ({ id: a.id, running: a.status === "running" })),
    focus,
    zoomed: Boolean(zoomAgent || view.viewer),
    dialogRows: head ? (head.request.fanout ? fanoutWantedRows(head.request.fanout, size.columns) : dialogWantedRows(head.request, size.columns)) : undefined,
    popupRows: Math.min(POPUP_MAX, input.popup.length),
  });
  const zoom = useZoom(state, view, dispatchView, layout.width, layout.bodyHeight);

  useDashboardKeys({
    session,
    state,
    view,
    dispatchView,
    layout,
    focus,
    zoomPage: zoom.page,
    inputText: input.text,
    clearInput: input.clear,
    running: () => runs.runningRef.current || session.busy,
    onInterrupt: () => {
      const t = Date.now();
      const running = runs.runningRef.current || session.busy;
      if (prompt.cancelShell() || running) {
        if (t - lastCtrlC.current < DOUBLE_CTRL_C_MS) exit(130);
        else {
          lastCtrlC.current = t;
          if (running) runs.cancelRun();
          runs.setNotice("cancelling… Ctrl+C again to exit");
        }
      } else exit(runs.lastStatus.current === "cancelled" ? 130 : 0);
    },
    onExit: () => exit(runs.lastStatus.current === "cancelled" ? 130 : 0),
    cancelRun: runs.cancelRun,
    cancelShell: prompt.cancelShell,
    stopAgent: (id, name) => {
      // Only that sub-agent's scope: its parent gets `cancelled` and goes on.
      session.cancel(id);
      setCancelling((c) => ({ ...c, [id]: name }));
    },
    backgroundAgent: (id, name) => {
      const moved = session.background(id);
      runs.setNotice(moved.ok ? `${name} moved to the background` : moved.error);
    },
    cycleMode: () => setMode({ session, store, refresh }, nextMode(session.permissionMode)),
    help: () => runCommand({ kind: "command", name: "help", arg: "" }, commandContext),
    review: (id) => dispatchView({ type: "open", target: { kind: "review", agentId: id } }),
  });

  const onAnswer = useCallback((id: number, answer: PermissionAnswer) => approver.answer(id, answer), [approver]);

  const stopping = Object.entries(cancelling)
    .filter(([id]) => state.agents[id]?.status === "running")
    .map(([, name]) => `cancelling ${name}…`);
  const notice = queueNote(runs.queued.length) + [...stopping, runs.notice].filter(Boolean).join(" · ");
  const hints = keyHints(
    {
      pending: pending.length,
      viewing: Boolean(view.viewer),
      reviewing: view.viewer?.kind === "review",
      zoomed: Boolean(zoomAgent),
      focused: focus !== null && focusAgent ? { name: focusAgent.name, running: focusAgent.status === "running", background: focusAgent.background } : undefined,
      selected: view.selected !== null,
      busy,
    },
    keymap,
  );

  let body: React.JSX.Element;
  if (view.viewer?.kind === "review" && session.review) {
    body = (
      <ReviewView
        review={session.review}
        bus={session.bus}
        agentId={view.viewer.agentId}
        only={view.viewer.only}
        width={layout.width}
        height={layout.bodyHeight}
        onClose={() => dispatchView({ type: "close" })}
        notify={(lines) => store.notices(lines)}
        submit={runs.submit}
      />
    );
  } else if (view.viewer) body = <Viewer target={view.viewer} state={state} width={layout.width} height={layout.bodyHeight} onClose={() => dispatchView({ type: "close" })} />;
  else if (zoomAgent) {
    const where = `zoom${zoom.scroll ? ` · ↑${zoom.scroll} rows` : ""}${zoomAgent.dropped ? ` · ${zoomAgent.dropped} older lines dropped` : ""}`;
    body = <AgentPane agent={zoomAgent} rows={zoom.rows} width={layout.width} height={layout.bodyHeight} focused frame={frame} now={now} note={where} selected={view.selected} zoomed />;
  } else {
    body = (
      <WelcomeContext.Provider value={welcome}>
        <LiveDashboard store={store} drawn={drawn} layout={layout} focus={focus} now={now} busy={busy} selected={view.selected} paneScroll={view.paneScroll} />
      </WelcomeContext.Provider>
    );
  }

  return (
    <Box flexDirection="column" width={layout.width} height={layout.height} overflowY="hidden">
      <Header
        state={state}
        model={session.modelName}
        workspace={session.workspaceRoot}
        sessionId={session.id}
        startedAt={startedAt}
        now={now}
        demo={demo}
        busy={busy}
        mode={session.permissionMode}
        sandboxAuto={session.sandboxedCommandsAuto?.() ?? false}
        width={layout.width}
      />
      {body}
      {head?.request.fanout ? (
        <FanoutDialog key={head.id} pending={{ ...head, request: { ...head.request, fanout: head.request.fanout } }} queued={pending.length - 1} width={layout.width} height={layout.dialogHeight} onAnswer={onAnswer} />
      ) : head ? (
        <PermissionDialog
          key={head.id}
          pending={head}
          queued={pending.length - 1}
          waitingFrom={pending.slice(1).map((p) => p.request.agentId)}
          label={state.agents[head.request.agentId]?.label}
          width={layout.width}
          height={layout.dialogHeight}
          onAnswer={onAnswer}
        />
      ) : null}
      <CommandPopup items={input.popup} index={input.popupIndex} height={layout.popupHeight} />
      <QueueLine state={state} />
      <InputBox
        editor={input.editor}
        width={layout.width}
        height={layout.inputHeight}
        active={!zoomAgent && !view.viewer}
        to={addressedAs}
        placeholder={
          head || zoomAgent || view.viewer ? "" : addressed ? "a message for it, read before its next step" : busy ? "type a message for after this run" : "Ask orca… (/ for commands, ? for help)"
        }
      />
      <KeyHints hints={hints} notice={notice} width={layout.width} />
    </Box>
  );
}
