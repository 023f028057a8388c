import type { Approver, PermissionAnswer, PermissionRequest } from "./approver.js";

/**
 * The approver of a headless run (`orca -p`), where nobody can be asked: every question is denied,
 * unless the user ran with `--yes`, which approves each call once (never "always", so the log
 * shows one decision per call).
 */
export class HeadlessApprover implements Approver {
  readonly decidedBy = "headless" as const;

  constructor(private readonly yes: boolean) {}

  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    if (this.yes) return { decision: "once" };
    return {
      decision: "deny",
      reason: `headless run without --yes (rule ${request.rule}); run with --yes or add an allow rule`,
    };
  }
}
