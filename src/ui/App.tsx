import { Box, useApp } from "ink";
import type React from "react";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { SessionApi } from "../orchestrator/types.js";
import type { PermissionAnswer } from "../tools/approver.js";
import { AgentPane } from "./AgentPane.js";
import { Dashboard } from "./Dashboard.js";
import type { DialogApprover } from "./dialog-approver.js";
import { DASHBOARD_LAYER, INPUT_LAYER, KeyLayerProvider, useKeyLayer } from "./hooks/key-layers.js";
import { useDashboardState, usePendingPermissions } from "./hooks/use-external.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { useRunQueue } from "./hooks/use-run-queue.js";
import { FRAME_MS, frameAt, useClock } from "./hooks/use-ticker.js";
import { useZoom } from "./hooks/use-zoom.js";
import { InputBox, inputLineCount } from "./InputBox.js";
import { keyHints, queueNote } from "./key-hints.js";
import type { KeyPress } from "./keys.js";
import { computeLayout } from "./layout.js";
import { dialogHeight, PermissionDialog } from "./PermissionDialog.js";
import { editorReducer, emptyEditor, type EditorAction } from "./state/editor.js";
import { subAgents } from "./state/reducer.js";
import { DashboardStore } from "./state/store.js";
import { initialView, viewReducer } from "./state/ui.js";
import { Header, KeyHints, QueueLine } from "./StatusBar.js";

/** A second Ctrl+C within this window exits even while a run is being cancelled. */
export const DOUBLE_CTRL_C_MS = 2000;

export interface AppProps {
  session: SessionApi;
  approver: DialogApprover;
  /** Created (and attached to the session's bus) by the App when not given. */
  store?: DashboardStore;
  demo?: boolean;
  initialPrompt?: string;
  /** Called once with the exit code when the user leaves; the App then unmounts. */
  onExit?: (code: number) => void;
}

function createStore(session: SessionApi): { store: DashboardStore; detach: () => void } {
  const store = new DashboardStore({ rootAgentId: session.rootAgentId });
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
    <KeyLayerProvider>
      <Main {...props} />
    </KeyLayerProvider>
  );
}

function Main({ session, approver, store: given, demo = false, initialPrompt, onExit }: AppProps): React.JSX.Element {
  const app = useApp();
  // Subscribing during the first render means no event emitted after mount is missed.
  const [owned] = useState(() => (given ? undefined : createStore(session)));
  const store = given ?? owned!.store;
  useEffect(() => () => owned?.detach(), [owned]);

  const state = useDashboardState(store);
  const pending = usePendingPermissions(approver);
  const size = useTerminalSize();
  const [view, dispatchView] = useReducer(viewReducer, initialView);
  // The ref is the truth between renders: keys that arrive in one read (a line and its Enter) are
  // handled before React re-renders, and must see each other's edits.
  const editorRef = useRef(emptyEditor);
  const [editor, setEditor] = useState(emptyEditor);
  const dispatchEdit = useCallback((action: EditorAction) => {
    editorRef.current = editorReducer(editorRef.current, action);
    setEditor(editorRef.current);
  }, []);
  const [startedAt] = useState(() => Date.now());

  const lastCtrlC = useRef(0);
  const exited = useRef(false);
  const runs = useRunQueue(
    session,
    () => exited.current,
    () => (lastCtrlC.current = 0),
  );
  const { runningRef, lastStatus, submit, cancelRun, setNotice } = runs;

  const busy = runs.running || session.busy;
  const anyRunning = busy || Object.keys(state.active).length > 0;
  // Spinners move only while something runs; idle, the header's clock ticks once a second.
  const now = useClock(anyRunning ? FRAME_MS : 1000, true);
  const frame = frameAt(now);

  const exit = useCallback(
    (code: number) => {
      if (exited.current) return;
      exited.current = true;
      approver.denyAll();
      onExit?.(code);
      app.exit();
    },
    [app, approver, onExit],
  );

  const submitRef = useRef(submit);
  submitRef.current = submit;
  useEffect(() => {
    if (initialPrompt?.trim()) submitRef.current(initialPrompt);
  }, [initialPrompt]);

  const agents = subAgents(state);
  const ids = useMemo(() => agents.map((a) => a.id), [agents]);
  const focusAgent = view.focus ? state.agents[view.focus] : undefined;
  const focus = focusAgent ? view.focus : null;
  // A running sub-agent with focus is who the input box talks to: Enter queues a message for it.
  const addressed = focus !== null && focusAgent?.status === "running" ? focusAgent : undefined;
  const addressedRef = useRef(addressed);
  addressedRef.current = addressed;
  const addressedAs = addressed ? `${addressed.name}${addressed.label ? ` [${addressed.label}]` : ""}` : undefined;
  const layoutInput = {
    columns: size.columns,
    rows: size.rows,
    inputLines: inputLineCount(editor.text, size.columns, addressedAs),
    agents: agents.map((a) => ({ id: a.id, running: a.status === "running" })),
    focus,
  };
  // A permission request takes the rows it needs (at most 60% of the body) below the dashboard.
  const asking = pending[0];
  const dialogRows = asking ? dialogHeight(asking.request, Math.max(7, Math.floor(computeLayout(layoutInput).bodyHeight * 0.6))) : 0;
  const layout = computeLayout({ ...layoutInput, reservedRows: dialogRows });

  const zoom = useZoom(state, view, dispatchView, layout.width, layout.bodyHeight);
  const zoomAgent = zoom.agent;

  const zoomTo = (id: string, up = 0): void => dispatchView({ type: "zoom", id, scroll: up });

  // Only that sub-agent's scope: its parent gets `cancelled` (with how to resume it) and goes on.
  const stopFocused = (): void => {
    if (focus === null || !focusAgent) return;
    session.cancel(focus);
    setNotice(`cancelling ${focusAgent.name}…`);
  };

  useKeyLayer(DASHBOARD_LAYER, (key: KeyPress) => {
    const empty = editorRef.current.text === "";
    switch (key.name) {
      case "ctrl":
        if (key.text === "b" && addressed && !addressed.background && addressed.parentId !== undefined) {
          const moved = session.background(addressed.id);
          setNotice(moved.ok ? `${addressed.name} moved to the background` : moved.error);
          return true;
        }
        if (key.text === "c") {
          const t = Date.now();
          if (runningRef.current || session.busy) {
            if (t - lastCtrlC.current < DOUBLE_CTRL_C_MS) exit(130);
            else {
              lastCtrlC.current = t;
              cancelRun();
              setNotice("cancelling… Ctrl+C again to exit");
            }
          } else exit(lastStatus.current === "cancelled" ? 130 : 0);
          return true;
        }
        if (key.text === "d" && empty && !runningRef.current) {
          exit(lastStatus.current === "cancelled" ? 130 : 0);
          return true;
        }
        return false;
      case "escape":
        if (focus === null) {
          if (runningRef.current || session.busy) cancelRun();
          else if (!empty) dispatchEdit({ type: "clear" });
        } else if (focusAgent?.status === "running") stopFocused();
        else dispatchView({ type: "focus", id: null });
        return true;
      case "tab":
        dispatchView({ type: "focus_next", ids });
        return true;
      case "backtab":
        dispatchView({ type: "focus_prev", ids });
        return true;
      case "pageup":
        zoomTo(focus ?? session.rootAgentId, zoom.page);
        return true;
      case "return":
        if (empty && focus !== null && !key.meta) {
          zoomTo(focus);
          return true;
        }
        return false;
      case "text":
        if (empty && focus !== null && key.text === "z") {
          zoomTo(focus);
          return true;
        }
        if (empty && addressed && key.text === "x") {
          stopFocused();
          return true;
        }
        return false;
      default:
        return false;
    }
  });

  /** Enter in the input box: a message for the running sub-agent with focus, else a prompt for the coordinator. */
  const send = (text: string): boolean => {
    const to = addressedRef.current;
    if (to) {
      const sent = session.message(to.id, text);
      setNotice(sent.ok ? `sent to ${to.name}: it reads it before its next step` : sent.error);
      return sent.ok;
    }
    // The coordinator has ended its turn and waits for background sub-agents: the message wakes it.
    if ((runningRef.current || session.busy) && session.agents().some((a) => a.id === session.rootAgentId && a.waiting)) {
      const sent = session.message(session.rootAgentId, text);
      if (sent.ok) return true;
    }
    submit(text);
    return true;
  };

  useKeyLayer(INPUT_LAYER, (key: KeyPress) => {
    switch (key.name) {
      case "text":
        if (key.text) dispatchEdit({ type: "insert", text: key.text });
        return true;
      case "return":
        if (key.meta) {
          dispatchEdit({ type: "insert", text: "\n" });
          return true;
        }
        if (editorRef.current.text.trim() && send(editorRef.current.text)) dispatchEdit({ type: "submitted" });
        return true;
      case "backspace":
        dispatchEdit({ type: "backspace" });
        return true;
      case "left":
      case "right":
      case "home":
      case "end":
        dispatchEdit({ type: key.name });
        return true;
      case "up":
        dispatchEdit({ type: "history_prev" });
        return true;
      case "down":
        dispatchEdit({ type: "history_next" });
        return true;
      case "ctrl": {
        const map: Record<string, Parameters<typeof dispatchEdit>[0]> = {
          a: { type: "home" },
          e: { type: "end" },
          u: { type: "kill_line" },
          d: { type: "delete" },
          b: { type: "left" },
          f: { type: "right" },
        };
        const action = map[key.text];
        if (action) dispatchEdit(action);
        return Boolean(action);
      }
      default:
        return false;
    }
  });

  const onAnswer = useCallback((id: number, answer: PermissionAnswer) => approver.answer(id, answer), [approver]);
  const head = pending[0];

  const hints = keyHints({
    pending: pending.length,
    zoomed: Boolean(zoomAgent),
    focused: focus !== null && focusAgent ? { name: focusAgent.name, running: focusAgent.status === "running", background: focusAgent.background } : undefined,
    busy,
  });

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
      />
      {zoomAgent && !head ? (
        <AgentPane
          agent={zoomAgent}
          rows={zoom.rows}
          width={layout.width}
          height={layout.bodyHeight}
          focused
          frame={frame}
          now={now}
          note={`zoom${zoom.scroll ? ` · ↑${zoom.scroll} rows` : ""}${zoomAgent.dropped ? ` · ${zoomAgent.dropped} older lines dropped` : ""}`}
        />
      ) : (
        <Dashboard state={state} layout={layout} focus={focus} frame={frame} now={now} busy={busy} />
      )}
      {head ? (
        <PermissionDialog
          key={head.id}
          pending={head}
          queued={pending.length - 1}
          label={state.agents[head.request.agentId]?.label}
          width={layout.width}
          height={dialogRows}
          onAnswer={onAnswer}
        />
      ) : null}
      <QueueLine state={state} />
      <InputBox
        editor={editor}
        width={layout.width}
        height={layout.inputHeight}
        active={!head && !zoomAgent}
        to={addressedAs}
        placeholder={head ? "" : zoomAgent ? "" : addressed ? "a message for it, read before its next step" : busy ? "type a message for after this run" : "Ask orca…"}
      />
      <KeyHints hints={hints} notice={queueNote(runs.queued.length) + (runs.notice ?? "")} />
    </Box>
  );
}
