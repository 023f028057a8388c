import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { fail, ok, type Tool, type ToolResult } from "../tool.js";
import { truncateHeadTail } from "../truncate.js";
import type { TokenCounter } from "../../util/token-counter.js";
import type { ShellManager } from "./shells.js";

const shellIdParams = madeOnFirstCall(() =>
  z.object({
    shell_id: z.string().describe('Id of a background shell, as returned by bash with run_in_background (e.g. "shell_1").'),
  }),
);
export type ShellIdArgs = z.infer<ReturnType<typeof shellIdParams>>;

export function unknownShell(tool: string, id: string, shells: ShellManager): ToolResult {
  const known = shells.ids();
  return fail(`${tool}: no background shell ${id}${known.length ? `; known shells: ${known.join(", ")}` : "; none have been started"}`);
}

export function bashOutputTool(opts: { shells: ShellManager; maxOutputTokens: number; tokens: TokenCounter }): Tool<ShellIdArgs> {
  return {
    name: "bash_output",
    description:
      "Read what a background shell has printed since the last read, with its status (running, exited or killed) and, once it has ended, its exit code.",
    get params() {
      return shellIdParams();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args) => ({ reads: [`shell:${args.shell_id}`], writes: [] }),
    permissionSubject: () => ({ kind: "none" }),
    async execute(args) {
      const read = opts.shells.read(args.shell_id);
      if (!read) return unknownShell("bash_output", args.shell_id, opts.shells);
      const lines = [`status: ${read.status}`];
      if (read.status !== "running" && read.exitCode !== null) lines.push(`exit code: ${read.exitCode}`);
      if (read.dropped > 0) lines.push(`[${read.dropped} characters of earlier output were dropped: the buffer was full]`);
      lines.push(
        read.output === ""
          ? "(no new output)"
          : truncateHeadTail(read.output, opts.maxOutputTokens, opts.tokens).text.replace(/\n$/, ""),
      );
      return ok(lines.join("\n"), { shellId: read.id, status: read.status, exitCode: read.exitCode });
    },
  };
}
