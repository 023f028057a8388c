import { performance } from "node:perf_hooks";

/**
 * Runs `work` once the event loop has been mostly idle for `ms` — orca waiting on the network, not
 * busy sending or parsing — so work that can wait (loading a tokenizer) fills a wait instead of
 * delaying a request. A busy stretch re-arms the timer. Returns a cancel function.
 */
export function whenIdle(ms: number, work: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const since = performance.eventLoopUtilization();
    timer = setTimeout(() => {
      // Utilization over the stretch: the share of it the loop spent running code.
      if (performance.eventLoopUtilization(since).utilization > MAX_BUSY) arm();
      else {
        timer = undefined;
        work();
      }
    }, ms);
    timer.unref();
  };
  arm();
  return () => {
    clearTimeout(timer);
    timer = undefined;
  };
}

const MAX_BUSY = 0.25;
