import type { Approver, PermissionAnswer, PermissionRequest } from "./approver.js";

/**
 * The approver of a headless run (`orca -p`), where nobody can be asked: every question is denied,
 * unless the user ran with `--yes`, which approves each call once (never "always", so the log
 * shows one decision per call) — but never a command's request to leave the sandbox.
 */
export class HeadlessApprover implements Approver {
  readonly decidedBy = "headless" as const;

  constructor(private readonly yes: boolean) {}

  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    if (request.outsideSandbox) {
      return { decision: "deny", reason: "running a command outside the sandbox needs a person's yes, even with --yes; allow its hosts in sandbox.network.allow, or set sandbox.enabled: false" };
    }
    if (this.yes) return { decision: "once" };
    return {
      decision: "deny",
      reason: `headless run without --yes (rule ${request.rule}); run with --yes or add an allow rule`,
    };
  }
}
