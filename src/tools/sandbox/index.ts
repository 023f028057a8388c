export { networkPolicy, Sandbox, type SandboxOptions, type WrappedCommand } from "./sandbox.js";
export { nestedRepoEvent, nestedRepoNotes, type NestedRepoReport } from "./nested-repos.js";
export { linkRestoredEvent } from "./protected-links.js";
export { removeAbandoned } from "./session-dir.js";
export { readDenyPatterns } from "./deny-read.js";
export { PROTECTED_NAMES } from "./protected.js";
export { SandboxError, type NetworkPolicy, type SandboxMode, type SandboxRequest, type SandboxStatus } from "./types.js";
export { sandboxNotice, sandboxOptions } from "./from-config.js";
