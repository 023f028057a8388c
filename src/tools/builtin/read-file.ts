import fs, { type Stats } from "node:fs";
import { promisify } from "node:util";
import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { openConfinedFdForRead } from "../confined-fs.js";
import { fail, ok, type Tool } from "../tool.js";
import { truncateHeadTail } from "../truncate.js";
import type { TokenCounter } from "../../util/token-counter.js";
import { fsFailure, looksBinary, pathSubject, plural, readAccess, resolveArg } from "./paths.js";

const params = madeOnFirstCall(() =>
  z.object({
    path: z.string().describe("File to read, relative to the workspace root (or absolute inside it)."),
    offset: z.number().int().min(1).optional().describe("1-based line number to start from. Default 1."),
    limit: z.number().int().min(1).optional().describe("Maximum number of lines to return. Default: to the end of the file."),
  }),
);
export type ReadFileArgs = z.infer<ReturnType<typeof params>>;

// Beyond this a whole-file read is the wrong tool; head/tail/sed in bash can stream.
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_LINE_CHARS = 2_000;
/**
 * A file up to this size is stat'ed, read and closed synchronously once open: each hand-off to the
 * thread pool and back (stat, stat, read, close) cost a step more than the call it made. The open
 * stays on the pool: it lets the event loop turn once, in which the HTTP client frees the model's
 * connection for the next request (read without a turn, the next request opened a second one and
 * the steps were slower on a busy machine). A larger file is read on the pool, so the event loop
 * (other agents' streams, a cancel) is not held for long.
 */
const SYNC_READ_BYTES = 256 * 1024;
const readFd = promisify(fs.readFile) as (fd: number, opts: { signal: AbortSignal }) => Promise<Buffer>;

export function readFileTool(opts: { maxOutputTokens: number; tokens: TokenCounter }): Tool<ReadFileArgs> {
  return {
    name: "read_file",
    description:
      "Read a text file. Lines are numbered like `cat -n`. Use offset/limit to read part of a large file; long output keeps its start and end and says which lines were left out.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args, ws) => readAccess(ws, args.path),
    permissionSubject: (args, ws) => pathSubject(ws, args.path),
    reads: (args) => [args.path],
    async execute(args, ctx) {
      const resolved = resolveArg(ctx.workspace, args.path, "read_file");
      if (resolved.error) return resolved.error;
      const abs = resolved.path;
      let data: Buffer;
      let stat: Stats;
      let fd: number | undefined;
      try {
        // Opened without following a symlink: what was checked is what is read.
        fd = await openConfinedFdForRead(ctx.workspace, abs);
        stat = fs.fstatSync(fd);
        if (stat.isDirectory()) return fail(`read_file: ${args.path} is a directory; use list_dir to see its entries`);
        if (!stat.isFile()) return fail(`read_file: ${args.path} is not a regular file`);
        if (stat.size > MAX_FILE_BYTES) {
          return fail(
            `read_file: ${args.path} is ${stat.size} bytes, too large to read; use bash with head, tail, sed -n or grep`,
          );
        }
        // Empty when checked reads to end of file, however long that is: a file another process keeps
        // appending to must not hold the event loop (and a cancel) while it grows, so it goes to the pool.
        data = stat.size > 0 && stat.size <= SYNC_READ_BYTES ? fs.readFileSync(fd) : await readFd(fd, { signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) return fail("read_file: cancelled", undefined, "cancelled");
        return fsFailure("read_file", args.path, err);
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
      if (looksBinary(data)) {
        return fail(`read_file: ${args.path} is a binary file (${data.length} bytes); read_file shows text files only`);
      }

      const lines = splitLines(data.toString("utf8"));
      const offset = args.offset ?? 1;
      if (lines.length > 0 && offset > lines.length) {
        return fail(`read_file: offset ${offset} is past the end of ${args.path} (${plural(lines.length, "line")})`);
      }
      // A window counts as seeing the file: the version is what a later write is checked against,
      // and a whole read of a long file is cut head and tail anyway (Claude Code does the same).
      ctx.versions?.read(abs, stat, data);
      if (lines.length === 0) return ok(`(${args.path} is empty)`, { path: abs, lines: 0 });
      const end = args.limit === undefined ? lines.length : Math.min(lines.length, offset - 1 + args.limit);
      const numbered = lines
        .slice(offset - 1, end)
        .map((line, i) => `${String(offset + i).padStart(6)}\t${clipLine(line)}`)
        .join("\n");

      const cut = truncateHeadTail(numbered, opts.maxOutputTokens, opts.tokens, ({ omittedLines, firstOmittedLine }) => {
        const first = offset + firstOmittedLine - 1;
        const last = first + omittedLines - 1;
        return `[… lines ${first}-${last} omitted (${plural(omittedLines, "line")}); read them with offset=${first} limit=${omittedLines} …]`;
      });
      let content = cut.text;
      if (end < lines.length) {
        content += `\n[${plural(lines.length - end, "more line")} after line ${end}; continue with offset=${end + 1}]`;
      }
      return ok(content, { path: abs, lines: lines.length, truncated: cut.truncated });
    },
  };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

function clipLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length - MAX_LINE_CHARS} more characters]`;
}
