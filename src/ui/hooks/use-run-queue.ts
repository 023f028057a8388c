import { useCallback, useRef, useState, type MutableRefObject } from "react";
import type { SessionStatus } from "../../events/types.js";
import type { SessionApi } from "../../orchestrator/types.js";

export interface RunQueue {
  /** True from submit until the run settles (React state, for rendering). */
  readonly running: boolean;
  /** The same, readable between renders by key handlers. */
  readonly runningRef: MutableRefObject<boolean>;
  /** Prompts typed during a run, sent one by one after it. */
  readonly queued: readonly string[];
  readonly notice: string | undefined;
  setNotice(notice: string | undefined): void;
  /** How the last run ended (the exit code depends on it). */
  readonly lastStatus: MutableRefObject<SessionStatus | undefined>;
  /**
   * Runs `text` now, or queues it behind the run in progress; `model` (a custom command's) for that
   * turn only. Null continues a resumed session's stopped run (SessionApi.continuing), if nothing runs.
   */
  submit(text: string | null, model?: string): void;
  /** The coordinator's answer of the last run that gave one (Markdown, as the model wrote it). */
  readonly lastAnswer: MutableRefObject<string>;
  /** Cancels the run and drops the queue. */
  cancelRun(): void;
}

/**
 * One run at a time on the session; what the user sends meanwhile waits in a queue. `stopped`
 * says the app is leaving (no queued prompt starts then); `onRunStart` fires as each run starts.
 */
export function useRunQueue(session: SessionApi, stopped: () => boolean, onRunStart: () => void): RunQueue {
  const [running, setRunning] = useState(false);
  const [queued, setQueued] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | undefined>();
  const runningRef = useRef(false);
  const queueRef = useRef<{ text: string; model?: string }[]>([]);
  const lastAnswer = useRef("");
  const lastStatus = useRef<SessionStatus | undefined>(undefined);
  // The callbacks are read through refs so `submit` keeps one identity for the session.
  const hooks = useRef({ stopped, onRunStart });
  hooks.current = { stopped, onRunStart };

  const submit = useCallback(
    (text: string | null, model?: string) => {
      if (runningRef.current) {
        if (text === null) return;
        queueRef.current = [...queueRef.current, { text, model }];
        setQueued(queueRef.current.map((q) => q.text));
        return;
      }
      const before = session.modelName;
      /** The model this turn set, as the session names it: put back only if still in place. */
      let set: string | undefined;
      if (model) {
        try {
          session.setModel(model);
          set = session.modelName;
        } catch (error) {
          setNotice(`model ${model}: ${error instanceof Error ? error.message : String(error)}; the run uses ${before}`);
        }
      }
      runningRef.current = true;
      setRunning(true);
      setNotice(undefined);
      hooks.current.onRunStart();
      // Settled below: the outcome becomes a notice, never an unhandled rejection.
      void session
        .run(text)
        .then(
          (result) => {
            lastStatus.current = result.status;
            if (result.answer.trim()) lastAnswer.current = result.answer;
            if (result.status !== "done" && result.status !== "idle") setNotice(`run ${result.status}`);
          },
          (error: unknown) => {
            lastStatus.current = "failed";
            setNotice(`run failed: ${error instanceof Error ? error.message : String(error)}`);
          },
        )
        .finally(() => {
          // A /model during the run is the person's choice since: it stays.
          if (set !== undefined && set !== before && session.modelName === set) session.setModel(before);
          runningRef.current = false;
          setRunning(false);
          const [next, ...rest] = queueRef.current;
          queueRef.current = rest;
          setQueued(rest.map((q) => q.text));
          if (next !== undefined && !hooks.current.stopped()) submit(next.text, next.model);
        });
    },
    [session],
  );

  const cancelRun = useCallback(() => {
    // Queued prompts were written for the run being stopped; drop them with it.
    queueRef.current = [];
    setQueued([]);
    session.cancel();
    setNotice("cancelling…");
  }, [session]);

  return { running, runningRef, queued, notice, setNotice, lastStatus, submit, cancelRun, lastAnswer };
}
