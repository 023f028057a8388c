/**
 * Ink's signal-exit re-raises a SIGTERM, SIGHUP or SIGINT once its own listener is the last one, and the
 * dashboard's screen drops its listener as it leaves: without another, the process died by the
 * signal before anything after the dashboard ran (SessionEnd hooks, the log's session_finished,
 * the demo's cleanup). While held, the first signal is left to the dashboard's orderly end; a
 * second one, or an end that takes longer than `graceMs`, runs `last` and exits (143 / 129).
 */
export function holdTerminationSignals(last: () => void, graceMs = 3_000): () => void {
  let timer: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    const now = (): never => {
      last();
      process.exit(signal === "SIGTERM" ? 143 : signal === "SIGINT" ? 130 : 129);
    };
    if (timer) now();
    timer = setTimeout(now, graceMs);
    timer.unref();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("SIGINT", onSignal);
  return () => {
    clearTimeout(timer);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    process.off("SIGINT", onSignal);
  };
}
