import { useInput, type Key } from "ink";
import type React from "react";
import { createContext, useCallback, useContext, useEffect, useRef, type ReactNode } from "react";
import { KeyRouter, normalizeKey, type KeyHandler } from "../keys.js";

/** Key layers by priority: a higher layer sees a key first and may consume it. */
export const ZOOM_LAYER = 200;
export const DASHBOARD_LAYER = 100;
export const INPUT_LAYER = 50;

const RouterContext = createContext<KeyRouter | null>(null);

/** The single `useInput` of the app (no `useFocus`: Ink would then swallow Esc and Tab). */
export function KeyLayerProvider({ children, router }: { children: ReactNode; router?: KeyRouter }): React.JSX.Element {
  const ref = useRef<KeyRouter>(router ?? new KeyRouter());
  const onInput = useCallback((input: string, key: Key) => ref.current.dispatch(normalizeKey(input, key)), []);
  useInput(onInput);
  return <RouterContext.Provider value={ref.current}>{children}</RouterContext.Provider>;
}

/** Registers a key layer while `active`; the handler may change every render. */
export function useKeyLayer(priority: number, handler: KeyHandler, active = true): void {
  const router = useContext(RouterContext);
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!router || !active) return;
    return router.add(priority, ref);
  }, [router, priority, active]);
}
