import { useEffect, useRef, useState } from "react";
import type { KeyPress } from "../keys.js";

/**
 * A question that keys typed before it has been on screen, untouched, for `armMs` — or within
 * `armMs` of the last key — never answer: they were meant for the input box. Returns whether it is
 * armed, and the observer its key layer calls for every key (each restarts the wait).
 */
export function useArming(armMs: number): { armed: boolean; observe(press: KeyPress): void } {
  const [armed, setArmed] = useState(false);
  const lastKey = useRef(0);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const arm = (): void => {
    clearTimeout(timer.current);
    const wait = Math.max(0, lastKey.current + armMs - Date.now());
    timer.current = setTimeout(() => {
      if (Date.now() - lastKey.current >= armMs - 5) setArmed(true);
      else arm();
    }, wait);
  };
  useEffect(() => {
    lastKey.current = Date.now();
    arm();
    return () => clearTimeout(timer.current);
  }, []);
  return {
    armed,
    observe: (press) => {
      if (armed || press.name === "ctrl") return;
      lastKey.current = Date.now();
      arm();
    },
  };
}
