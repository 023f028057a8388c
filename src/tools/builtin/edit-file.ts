import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { contentHash } from "../../util/content-hash.js";
import { writeFileAtomic } from "../confined-fs.js";
import { readForPreview, unifiedDiff } from "../diff.js";
import { fail, ok, type Tool } from "../tool.js";
import type { Workspace } from "../workspace.js";
import { announceWrite, currentFile, type CurrentFile } from "./file-writes.js";
import { fsFailure, looksBinary, pathSubject, resolveArg, writeAccess } from "./paths.js";

const params = madeOnFirstCall(() =>
  z.object({
    path: z.string().describe("File to edit, relative to the workspace root."),
    old_string: z
      .string()
      .describe("Exact text to replace, whitespace and indentation included. Must occur exactly once unless replace_all is set."),
    new_string: z.string().describe("Text to put in its place."),
    replace_all: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one. Default false."),
  }),
);
export type EditFileArgs = z.infer<ReturnType<typeof params>>;

const SNIPPET_CONTEXT = 2;
const SNIPPET_MAX_LINES = 20;

export function editFileTool(): Tool<EditFileArgs> {
  return {
    name: "edit_file",
    description:
      "Replace exact text in a file. old_string must match exactly once (add surrounding lines to make it unique) unless replace_all is true. Read the file first; copy the text without the line-number prefix.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => false,
    access: (args, ws) => writeAccess(ws, args.path),
    permissionSubject: (args, ws) => pathSubject(ws, args.path),
    // Its result and its diff show the text around the edit.
    reads: (args) => [args.path],
    preview: previewEdit,
    async execute(args, ctx) {
      const resolved = resolveArg(ctx.workspace, args.path, "edit_file");
      if (resolved.error) return resolved.error;
      const abs = resolved.path;
      const rel = ctx.workspace.relative(abs);
      if (args.old_string === "") {
        return fail("edit_file: old_string is empty; use write_file to create a file or replace all of it");
      }
      if (args.old_string === args.new_string) {
        return fail("edit_file: old_string and new_string are identical; nothing to change");
      }
      // Read through the same walk the write takes: no symlink is followed, and the stat and the
      // bytes come from one open file.
      let current: CurrentFile | null;
      try {
        current = await currentFile(ctx, abs, Number.POSITIVE_INFINITY);
      } catch (err) {
        if (ctx.signal.aborted) return fail("edit_file: cancelled", undefined, "cancelled");
        return fsFailure("edit_file", args.path, err);
      }
      if (!current) return fail(`edit_file: ${args.path} does not exist; use write_file to create it`);
      const { stat } = current;
      if (stat.isDirectory()) return fail(`edit_file: ${args.path} is a directory`);
      if (!current.data || current.hash === null) return fail(`edit_file: ${args.path} is not a regular file`);
      const data = current.data;
      if (looksBinary(data)) return fail(`edit_file: ${args.path} is a binary file`);
      const original = data.toString("utf8");
      // Check and write are one scheduled call, serialised with every other call on this path.
      const basis = ctx.versions?.editBasis(abs, stat, data);
      const refuse = (message: string) => fail(basis && ctx.versions ? ctx.versions.editRefused(abs, basis, message) : message);

      let oldString = args.old_string;
      let newString = args.new_string;
      let positions = occurrences(original, oldString);
      // read_file shows CRLF files without the \r, so the model's text has bare newlines.
      if (positions.length === 0 && original.includes("\r\n") && oldString.includes("\n") && !oldString.includes("\r")) {
        oldString = oldString.replace(/\n/g, "\r\n");
        newString = newString.replace(/\r?\n/g, "\r\n");
        positions = occurrences(original, oldString);
      }
      if (positions.length === 0) {
        return refuse(
          `edit_file: old_string not found in ${rel}; read the file again and copy the text exactly, whitespace and indentation included`,
        );
      }
      if (positions.length > 1 && !args.replace_all) {
        const lines = positions.map((p) => lineAt(original, p));
        return refuse(
          `edit_file: old_string matches ${positions.length} places in ${rel} (lines ${lines.join(", ")}); include more context or set replace_all`,
        );
      }
      if (ctx.signal.aborted) return fail("edit_file: cancelled", undefined, "cancelled");

      const updated = positions.length === 1
        ? original.slice(0, positions[0]) + newString + original.slice(positions[0] + oldString.length)
        : original.split(oldString).join(newString);
      const updatedBytes = Buffer.from(updated, "utf8");
      try {
        await writeFileAtomic(ctx.workspace, abs, updatedBytes, { onTemp: announceWrite(ctx, "edit_file", abs, current.hash, contentHash(updatedBytes)) });
      } catch (err) {
        return fsFailure("edit_file", args.path, err);
      }
      const note = basis && ctx.versions?.edited(abs, basis, updated);

      // Where each replacement starts in the new file.
      const delta = newString.length - oldString.length;
      const newStarts = positions.map((p, i) => p + i * delta);
      const changedLines = newStarts.map((p) => lineAt(updated, p));
      let content =
        positions.length === 1
          ? `Edited ${rel}: replaced 1 occurrence at line ${changedLines[0]}`
          : `Edited ${rel}: replaced ${positions.length} occurrences at lines ${changedLines.join(", ")}`;
      if (positions.length === 1) {
        content += `\n${snippet(updated, changedLines[0], lineAt(updated, newStarts[0] + newString.length))}`;
      }
      if (note) content += `\n${note}`;
      // The applied change, for the dashboard (never sent to the model: `content` is).
      const diff = unifiedDiff(original, updated, rel, false);
      return ok(content, { path: abs, filesChanged: [abs], replacements: positions.length, lines: changedLines, diff });
    },
  };
}

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) found.push(i);
  return found;
}

/** 1-based line number of character index `index`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The changed lines with a little context, numbered like read_file, so the model can check the result. */
function snippet(text: string, firstLine: number, lastLine: number): string {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, lastLine + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  const shown = lines
    .slice(from - 1, to)
    .map((l, i) => `${String(from + i).padStart(6)}\t${l.endsWith("\r") ? l.slice(0, -1) : l}`);
  return shown.join("\n");
}

/** The replacement as a diff, or none when the edit would not apply as sent (execute says why). */
async function previewEdit(args: EditFileArgs, workspace: Workspace): Promise<string | undefined> {
  const { before, label } = await readForPreview(workspace, args.path);
  const { old_string: oldString, new_string: newString, replace_all: replaceAll } = args;
  if (before === null || before === "too-big" || oldString === "") return undefined;
  const count = before.split(oldString).length - 1;
  if (count === 0 || (count > 1 && replaceAll !== true)) return undefined;
  const after = replaceAll === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
  return unifiedDiff(before, after, label, false);
}
