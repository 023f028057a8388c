import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { contentHash } from "../../util/content-hash.js";
import { writeFileAtomic } from "../confined-fs.js";
import { PREVIEW_MAX_BYTES, readForPreview, unifiedDiff } from "../diff.js";
import { fail, ok, type Tool } from "../tool.js";
import type { Workspace } from "../workspace.js";
import { announceWrite, currentFile, type CurrentFile } from "./file-writes.js";
import { fsFailure, pathSubject, plural, resolveArg, writeAccess } from "./paths.js";

const params = madeOnFirstCall(() =>
  z.object({
    path: z.string().describe("File to write, relative to the workspace root. Missing parent folders are created."),
    content: z.string().describe("The complete new content of the file."),
  }),
);
export type WriteFileArgs = z.infer<ReturnType<typeof params>>;

export function writeFileTool(): Tool<WriteFileArgs> {
  return {
    name: "write_file",
    description:
      "Create a file or replace its whole content. To change part of an existing file, prefer edit_file.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => false,
    access: (args, ws) => writeAccess(ws, args.path),
    permissionSubject: (args, ws) => pathSubject(ws, args.path),
    preview: previewWrite,
    async execute(args, ctx) {
      const resolved = resolveArg(ctx.workspace, args.path, "write_file");
      if (resolved.error) return resolved.error;
      const abs = resolved.path;
      if (ctx.signal.aborted) return fail("write_file: cancelled", undefined, "cancelled");
      // What is there now, through the same walk the write takes: no symlink is followed.
      let current: CurrentFile | null;
      try {
        current = await currentFile(ctx, abs, PREVIEW_MAX_BYTES);
      } catch (err) {
        if (ctx.signal.aborted) return fail("write_file: cancelled", undefined, "cancelled");
        return fsFailure("write_file", args.path, err);
      }
      const stat = current?.stat ?? null;
      if (stat?.isDirectory()) return fail(`write_file: ${args.path} is a directory`);
      // A FIFO or device would block or never end the version check's read (and the write).
      if (stat && !stat.isFile()) return fail(`write_file: ${args.path} is not a regular file`);
      // Check and write are one scheduled call, serialised with every other call on this path.
      if (ctx.versions) {
        let check;
        try {
          check = await ctx.versions.checkWrite(abs, stat);
        } catch (err) {
          return fsFailure("write_file", args.path, err);
        }
        if (!check.ok) return fail(check.message);
      }
      if (ctx.signal.aborted) return fail("write_file: cancelled", undefined, "cancelled");
      const previousSize = stat ? stat.size : null;
      // Encoded once: the same bytes are written and hashed.
      const data = Buffer.from(args.content, "utf8");
      try {
        await writeFileAtomic(ctx.workspace, abs, data, {
          createParents: true,
          onTemp: announceWrite(ctx, "write_file", abs, current?.hash ?? null, contentHash(data)),
        });
      } catch (err) {
        return fsFailure("write_file", args.path, err);
      }
      ctx.versions?.wrote(abs, data, previousSize === null);
      const bytes = data.length;
      const rel = ctx.workspace.relative(abs);
      const summary =
        previousSize === null
          ? `Created ${rel} (${plural(bytes, "byte")})`
          : `Overwrote ${rel} (${plural(bytes, "byte")}, was ${plural(previousSize, "byte")})`;
      // The applied diff the dashboard shows (too big, or not text we kept: no diff).
      const before = current === null ? "" : current.data?.toString("utf8");
      const diff = before === undefined || bytes > PREVIEW_MAX_BYTES ? undefined : unifiedDiff(before, args.content, rel, current === null);
      return ok(summary, { path: abs, filesChanged: [abs], created: previousSize === null, bytes, ...(diff ? { diff } : {}) });
    },
  };
}

/** The whole file as a diff against what is there now (a new file diffs against /dev/null). */
async function previewWrite(args: WriteFileArgs, workspace: Workspace): Promise<string | undefined> {
  const { before, label } = await readForPreview(workspace, args.path);
  if (before === "too-big") return undefined;
  return unifiedDiff(before ?? "", args.content, label, before === null);
}
