import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { fail, ok, type Tool } from "../tool.js";
import type { Workspace } from "../workspace.js";
import { truncateHeadTail } from "../truncate.js";
import type { TokenCounter } from "../../util/token-counter.js";
import { errorMessage, fsFailure, looksBinary, pathSubject, plural, readAccess, resolveArg } from "./paths.js";
import { findFiles, patternProblem } from "./walk.js";
import type { RE2JS } from "re2js";

const params = madeOnFirstCall(() =>
  z.object({
    pattern: z.string().describe("JavaScript regular expression to search for, e.g. \"function\\s+load\" or \"TODO|FIXME\"."),
    path: z.string().optional().describe("File or folder to search, relative to the workspace root. Default: the root."),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "**/*.ts". node_modules and .git are skipped unless named.'),
    ignore_case: z.boolean().optional().describe("Match case-insensitively. Default false."),
    max_results: z.number().int().min(1).max(1000).optional().describe("Stop after this many matching lines. Default 100."),
  }),
);
export type GrepArgs = z.infer<ReturnType<typeof params>>;

const DEFAULT_MAX_RESULTS = 100;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_SHOWN_CHARS = 300;
const READ_BATCH = 16;

export function grepTool(opts: { maxOutputTokens: number; tokens: TokenCounter }): Tool<GrepArgs> {
  return {
    name: "grep",
    description:
      "Search file contents with a regular expression. Prints `path:line:text` for each matching line. Binary files, node_modules and .git are skipped.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args, ws) => readAccess(ws, args.path ?? "."),
    permissionSubject: (args, ws) => pathSubject(ws, args.path ?? "."),
    reads: (args) => [args.path ?? "."],
    async execute(args, ctx) {
      // RE2 semantics (as ripgrep's): matching time is linear in the input, so no pattern the
      // model writes — `^(a+)+$` say — can freeze the process, which a JS RegExp would.
      // Loaded on first use: 270 KB that most runs never need to compile at start-up.
      const { RE2JS: Re2 } = await import("re2js");
      let regex: RE2JS;
      try {
        regex = Re2.compile(args.pattern, args.ignore_case ? Re2.CASE_INSENSITIVE : 0);
      } catch (err) {
        return fail(`grep: invalid regular expression (RE2 syntax, as ripgrep; no lookaround or backreferences): ${errorMessage(err)}`);
      }
      if (args.glob !== undefined) {
        const problem = patternProblem(args.glob);
        if (problem) return fail(`grep: glob ${problem}`);
      }
      const display = args.path ?? ".";
      const resolved = resolveArg(ctx.workspace, display, "grep");
      if (resolved.error) return resolved.error;
      const root = resolved.path;

      let files: string[];
      try {
        const stat = await fs.stat(root);
        files = stat.isDirectory()
          ? (await findFiles(root, args.glob ?? "**/*", ctx.signal)).map((f) => path.join(root, f)).sort()
          : [root];
      } catch (err) {
        if (ctx.signal.aborted) return fail("grep: cancelled", undefined, "cancelled");
        if ((err as NodeJS.ErrnoException).code) return fsFailure("grep", display, err);
        return fail(`grep: ${errorMessage(err)}`);
      }

      // A `read_file(PATTERN)` deny hides a file's content from every tool: skipped, and said so.
      const hidden: string[] = [];
      if (ctx.readDenied) {
        const deny = ctx.readDenied;
        files = files.filter((f) => {
          // The file as named and what a link names: `notes -> .env` is .env's content.
          const names = [ctx.workspace.relative(f), realRelative(ctx.workspace, f)];
          if (!names.some((n) => n !== null && deny(n))) return true;
          hidden.push(ctx.workspace.relative(f));
          return false;
        });
      }
      const skippedNote = hidden.length ? `\n[${plural(hidden.length, "file")} not searched: a read_file deny rule hides ${hidden.length === 1 ? "it" : "them"} (${hidden.slice(0, 5).join(", ")}${hidden.length > 5 ? ", …" : ""})]` : "";
      const max = args.max_results ?? DEFAULT_MAX_RESULTS;
      const matches: string[] = [];
      const matchedFiles = new Set<string>();
      let stopped = false;
      for (let i = 0; i < files.length && !stopped; i += READ_BATCH) {
        if (ctx.signal.aborted) return fail("grep: cancelled", undefined, "cancelled");
        const batch = files.slice(i, i + READ_BATCH);
        const contents = await Promise.all(batch.map((f) => readSearchable(ctx.workspace, f)));
        for (let j = 0; j < batch.length && !stopped; j++) {
          const text = contents[j];
          if (text === null) continue;
          const rel = ctx.workspace.relative(batch[j]);
          const lines = text.split("\n");
          for (let n = 0; n < lines.length; n++) {
            const line = lines[n].endsWith("\r") ? lines[n].slice(0, -1) : lines[n];
            const m = regex.matcher(line);
            if (!m.find()) continue;
            if (matches.length === max) {
              stopped = true;
              break;
            }
            matches.push(`${rel}:${n + 1}:${clip(line, m.start())}`);
            matchedFiles.add(rel);
          }
        }
      }

      if (matches.length === 0) return ok(`No matches for /${args.pattern}/ in ${display}${skippedNote}`, { count: 0, hidden: hidden.length });
      let content = matches.join("\n");
      if (stopped) {
        content += `\n[stopped at ${max} matches; narrow pattern, path or glob, or raise max_results]`;
      }
      const cut = truncateHeadTail(content, opts.maxOutputTokens, opts.tokens);
      const summary = `${plural(matches.length, "match", "matches")} in ${plural(matchedFiles.size, "file")}${stopped ? " (stopped early)" : ""}`;
      return ok(`${summary}\n${cut.text}${skippedNote}`, { count: matches.length, files: matchedFiles.size, hidden: hidden.length });
    },
  };
}

/** Text of a file worth searching, or null: outside the workspace via a symlink, huge, binary, unreadable. */
async function readSearchable(workspace: Workspace, file: string): Promise<string | null> {
  try {
    const real = workspace.resolve(file);
    const stat = await fs.stat(real);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
    const data = await fs.readFile(real);
    return looksBinary(data) ? null : data.toString("utf8");
  } catch {
    return null;
  }
}

function realRelative(workspace: Workspace, file: string): string | null {
  try {
    return workspace.relative(workspace.resolve(file));
  } catch {
    return null;
  }
}

/** A matching line, shortened around the match when it is very long (minified code). */
function clip(line: string, at: number): string {
  if (line.length <= MAX_SHOWN_CHARS) return line;
  const start = Math.max(0, Math.min(at - 50, line.length - MAX_SHOWN_CHARS));
  const end = start + MAX_SHOWN_CHARS;
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
}
