import { useInput, type Key } from "ink";
import type React from "react";
import { createContext, useCallback, useContext, useLayoutEffect, useRef, type ReactNode } from "react";
import { KeyRouter, normalizeKey, type LayerHandlers } from "../keys.js";
import { DEFAULT_KEYMAP, type KeyPriority, type Keymap } from "../keymap.js";

const RouterContext = createContext<KeyRouter | null>(null);
const KeymapContext = createContext<Keymap>(DEFAULT_KEYMAP);

/** The single `useInput` of the app (no `useFocus`: Ink would then swallow Esc and Tab). */
export function KeyLayerProvider({ children, router, keymap = DEFAULT_KEYMAP }: { children: ReactNode; router?: KeyRouter; keymap?: Keymap }): React.JSX.Element {
  const ref = useRef<KeyRouter>(router ?? new KeyRouter(keymap));
  ref.current.setKeymap(keymap);
  const onInput = useCallback((input: string, key: Key) => ref.current.dispatch(normalizeKey(input, key)), []);
  useInput(onInput);
  return (
    <KeymapContext.Provider value={keymap}>
      <RouterContext.Provider value={ref.current}>{children}</RouterContext.Provider>
    </KeymapContext.Provider>
  );
}

/** The keymap in force (defaults with `keys:` from config applied). */
export function useKeymap(): Keymap {
  return useContext(KeymapContext);
}

/**
 * Registers a key layer while `active`; the handlers may change every render. A layout effect, so
 * a layer is in place when its frame is committed: a passive effect may wait for the next render,
 * and the key right after "?" opened the help would fall through to the input box.
 */
export function useKeyLayer(priority: KeyPriority, handlers: LayerHandlers, active = true): void {
  const router = useContext(RouterContext);
  const ref = useRef(handlers);
  ref.current = handlers;
  useLayoutEffect(() => {
    if (!router || !active) return;
    return router.add(priority, ref);
  }, [router, priority, active]);
}
