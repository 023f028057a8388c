import { useSyncExternalStore } from "react";
import type { DialogApprover, PendingPermission } from "../dialog-approver.js";
import type { DashboardStore } from "../state/store.js";
import type { DashboardState } from "../state/types.js";

export function useDashboardState(store: DashboardStore): DashboardState {
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

export function usePendingPermissions(approver: DialogApprover): readonly PendingPermission[] {
  return useSyncExternalStore(approver.subscribe, approver.getSnapshot);
}
