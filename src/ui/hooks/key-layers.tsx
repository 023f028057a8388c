import { useInput } from "ink";
import { unstable_LowPriority, unstable_scheduleCallback } from "scheduler";
import type React from "react";
import { createContext, useCallback, useContext, useLayoutEffect, useRef, type ReactNode } from "react";
import { KeyRouter, readsOf, TypedKeys, type KeyPress, type LayerHandlers } from "../keys.js";
import { DEFAULT_KEYMAP, type KeyPriority, type Keymap } from "../keymap.js";

const RouterContext = createContext<KeyRouter | null>(null);
const KeymapContext = createContext<Keymap>(DEFAULT_KEYMAP);

/**
 * Keys in the order they came, each handled once React has drawn what the one before changed.
 * Ink hands over every key of one read (a fast typist, key repeat, a paste of arrows) in the same
 * tick, before React re-renders: the handlers of the second key would still see the state from
 * before the first (↑ then Enter opened nothing, since Enter did not yet know of the selection).
 * The first key of a burst is handled at once; each next one once React's render, commit and
 * effects (which install the new handlers) have run.
 */
export class KeyQueue<K> {
  private pending: K[] = [];
  private busy = false;

  constructor(private readonly handle: (key: K) => void) {}

  push(key: K): void {
    this.pending.push(key);
    if (!this.busy) this.next();
  }

  private next(): void {
    const key = this.pending.shift();
    if (key === undefined) {
      this.busy = false;
      return;
    }
    this.busy = true;
    this.handle(key);
    // React renders through the same scheduler at normal priority, and its commit's effects too:
    // a low-priority task runs only once that work is done, however many turns it takes.
    unstable_scheduleCallback(unstable_LowPriority, () => this.next());
  }
}

/** The single `useInput` of the app (no `useFocus`: Ink would then swallow Esc and Tab). */
export function KeyLayerProvider({ children, router, keymap = DEFAULT_KEYMAP }: { children: ReactNode; router?: KeyRouter; keymap?: Keymap }): React.JSX.Element {
  const ref = useRef<KeyRouter>(router ?? new KeyRouter(keymap));
  ref.current.setKeymap(keymap);
  const keys = useRef(new KeyQueue<KeyPress>((k) => ref.current.dispatch(k)));
  const typed = useRef(new TypedKeys());
  const onInput = useCallback(
    readsOf((presses) => {
      for (const press of typed.current.read(presses)) keys.current.push(press);
    }),
    [],
  );
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
