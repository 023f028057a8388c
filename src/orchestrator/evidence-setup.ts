import type { OrcaEvent } from "../events/types.js";
import { AgentEvidence } from "../review/agent-evidence.js";
import type { ContentStore } from "../sessions/content-store.js";
import { runForeground, type BashOptions } from "../tools/builtin/bash.js";
import { fail } from "../tools/tool.js";

/**
 * What the session's permissions say of a verify command, asked before it runs: a deny rule that
 * matches it (it is refused), and the sandbox it runs in (read-only in plan mode).
 */
export type VerifyPolicy = (command: string, agentId: string) => Promise<{ deny?: string; sandbox: "read-only" | "workspace-write" }>;

/**
 * The session's evidence: `verify:` commands run exactly as the bash tool runs a command (same
 * launcher, process tracking, output limits), but always in the sandbox (workspace-write; read-only in plan mode; refused when a deny rule matches) — refused,
 * not run outside it, where there is none — and the change sets read from the session's content
 * store. A resumed session first reads what its log already holds.
 */
export function createAgentEvidence(opts: { bash: BashOptions; contents: ContentStore; workspaceRoot: string; prior?: readonly OrcaEvent[]; policy: VerifyPolicy }): AgentEvidence {
  const evidence = new AgentEvidence({
    contents: opts.contents,
    workspaceRoot: opts.workspaceRoot,
    runCommand: async (command, cwd, agentId, signal) => {
      // No dialog asks about a verify command, but deny rules and plan mode hold for it as for any.
      const policy = await opts.policy(command, agentId);
      if (policy.deny) return fail(`denied by rule deny: ${policy.deny}`, undefined, "denied");
      return runForeground(command, cwd, opts.bash.bashTimeoutMs, { signal, sandbox: policy.sandbox, agentId }, opts.bash);
    },
  });
  for (const event of opts.prior ?? []) evidence.ingest(event);
  return evidence;
}
