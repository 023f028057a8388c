import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { fail, ok, type Tool } from "../tool.js";
import { errorMessage, fsFailure, pathSubject, plural, readAccess, resolveArg } from "./paths.js";
import { findFiles, patternProblem } from "./walk.js";

const params = madeOnFirstCall(() =>
  z.object({
    pattern: z.string().describe('Glob pattern, e.g. "**/*.ts" or "src/**/test_*.py". node_modules and .git are skipped unless named.'),
    path: z.string().optional().describe("Folder to search in, relative to the workspace root. Default: the root."),
  }),
);
export type GlobArgs = z.infer<ReturnType<typeof params>>;

const MAX_RESULTS = 200;
// Sorting by modification time needs a stat per file; past this many, sort by name instead.
const MAX_STAT = 5_000;

export function globTool(): Tool<GlobArgs> {
  return {
    name: "glob",
    description:
      "Find files by name pattern. Returns workspace-relative paths, most recently modified first.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args, ws) => readAccess(ws, args.path ?? "."),
    permissionSubject: (args, ws) => pathSubject(ws, args.path ?? "."),
    async execute(args, ctx) {
      const problem = patternProblem(args.pattern);
      if (problem) return fail(`glob: ${problem}`);
      const display = args.path ?? ".";
      const resolved = resolveArg(ctx.workspace, display, "glob");
      if (resolved.error) return resolved.error;
      const root = resolved.path;
      let files: string[];
      try {
        const stat = await fs.stat(root);
        if (!stat.isDirectory()) return fail(`glob: ${display} is not a folder`);
        files = await findFiles(root, args.pattern, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) return fail("glob: cancelled", undefined, "cancelled");
        if ((err as NodeJS.ErrnoException).code) return fsFailure("glob", display, err);
        return fail(`glob: ${errorMessage(err)}`);
      }
      if (files.length === 0) return ok(`No files match ${args.pattern} in ${display}`);

      const absolute = files.map((f) => path.join(root, f));
      let byTime = absolute.length <= MAX_STAT;
      let ordered: string[];
      if (byTime) {
        const stamped = await Promise.all(
          absolute.map(async (f) => ({ f, t: await fs.lstat(f).then((s) => s.mtimeMs, () => 0) })),
        );
        stamped.sort((a, b) => b.t - a.t || compare(a.f, b.f));
        ordered = stamped.map((s) => s.f);
      } else {
        byTime = false;
        ordered = [...absolute].sort(compare);
      }
      const shown = ordered.slice(0, MAX_RESULTS).map((f) => ctx.workspace.relative(f));
      let content = shown.join("\n");
      if (ordered.length > shown.length) {
        content += `\n[… ${plural(ordered.length, "file")} match; showing the ${shown.length} ${byTime ? "most recently modified" : "first by name"}. Narrow the pattern or path.]`;
      }
      return ok(content, { count: ordered.length });
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
