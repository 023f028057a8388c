import { useCallback, useRef, useSyncExternalStore } from "react";
import type { DialogApprover, PendingPermission } from "../dialog-approver.js";
import type { DashboardStore } from "../state/store.js";
import { onlyTextChanged } from "../state/text-only.js";
import type { DashboardState } from "../state/types.js";

export function useDashboardState(store: DashboardStore): DashboardState {
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

/**
 * The state for a component that shows no transcript unless `live`: while only streamed text
 * changes it keeps the state it last returned, so the component does not render again for a
 * delta (the panes follow the store themselves). `live` (a zoomed pane, a viewer, a focused pane's
 * selection read the transcript) returns every change.
 */
export function useDashboardShape(store: DashboardStore, live: boolean): DashboardState {
  const shown = useRef<{ store: DashboardStore; state: DashboardState } | null>(null);
  const snapshot = useCallback((): DashboardState => {
    const now = store.getSnapshot();
    const last = shown.current;
    if (live || last?.store !== store || !onlyTextChanged(last.state, now)) shown.current = { store, state: now };
    return shown.current!.state;
  }, [store, live]);
  return useSyncExternalStore(store.subscribe, snapshot);
}

export function usePendingPermissions(approver: DialogApprover): readonly PendingPermission[] {
  return useSyncExternalStore(approver.subscribe, approver.getSnapshot);
}
