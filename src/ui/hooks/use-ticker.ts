import { useEffect, useState } from "react";

/** A counter that advances every `intervalMs` while `active` (spinners, elapsed clocks). */
export function useTicker(intervalMs: number, active: boolean): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((t) => t + 1), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return tick;
}
