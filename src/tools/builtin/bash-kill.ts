import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { ok, type Tool } from "../tool.js";
import { unknownShell } from "./bash-output.js";
import type { ShellManager } from "./shells.js";

const params = madeOnFirstCall(() =>
  z.object({
    shell_id: z.string().describe('Id of the background shell to stop (e.g. "shell_1").'),
  }),
);
export type BashKillArgs = z.infer<ReturnType<typeof params>>;

export function bashKillTool(opts: { shells: ShellManager }): Tool<BashKillArgs> {
  return {
    name: "bash_kill",
    description:
      "Stop a background shell and every process it started (SIGTERM, then SIGKILL after 2 seconds).",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => false,
    access: (args) => ({ reads: [], writes: [`shell:${args.shell_id}`] }),
    permissionSubject: () => ({ kind: "none" }),
    async execute(args) {
      const before = await opts.shells.kill(args.shell_id);
      if (before === undefined) return unknownShell("bash_kill", args.shell_id, opts.shells);
      if (before !== "running") {
        return ok(`${args.shell_id} was not running (status: ${before}); nothing to stop`, {
          shellId: args.shell_id,
          status: before,
        });
      }
      return ok(`Killed ${args.shell_id}.\nstatus: killed`, { shellId: args.shell_id, status: "killed" });
    },
  };
}
