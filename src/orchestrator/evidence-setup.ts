import type { OrcaEvent } from "../events/types.js";
import { AgentEvidence } from "../review/agent-evidence.js";
import type { ContentStore } from "../sessions/content-store.js";
import { runForeground, type BashOptions } from "../tools/builtin/bash.js";

/**
 * The session's evidence: `verify:` commands run exactly as the bash tool runs a command (same
 * launcher, process tracking, output limits), but always in the workspace-write sandbox — refused,
 * not run outside it, where there is none — and the change sets read from the session's content
 * store. A resumed session first reads what its log already holds.
 */
export function createAgentEvidence(opts: { bash: BashOptions; contents: ContentStore; workspaceRoot: string; prior?: readonly OrcaEvent[] }): AgentEvidence {
  const evidence = new AgentEvidence({
    contents: opts.contents,
    workspaceRoot: opts.workspaceRoot,
    runCommand: (command, cwd, agentId, signal) => runForeground(command, cwd, opts.bash.bashTimeoutMs, { signal, sandbox: "workspace-write", agentId }, opts.bash),
  });
  for (const event of opts.prior ?? []) evidence.ingest(event);
  return evidence;
}
