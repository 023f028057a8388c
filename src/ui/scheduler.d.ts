// The two exports of React's scheduler that the key queue uses (the package ships no types).
declare module "scheduler" {
  export const unstable_LowPriority: 4;
  export function unstable_scheduleCallback(priority: 4, callback: () => void): unknown;
}
