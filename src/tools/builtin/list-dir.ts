import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { fail, ok, type Tool } from "../tool.js";
import { isTempName } from "../../util/atomic-write.js";
import { fsFailure, pathSubject, plural, readAccess, resolveArg } from "./paths.js";

const params = madeOnFirstCall(() =>
  z.object({
    path: z.string().optional().describe("Folder to list, relative to the workspace root. Default: the root."),
  }),
);
export type ListDirArgs = z.infer<ReturnType<typeof params>>;

const MAX_ENTRIES = 500;

export function listDirTool(): Tool<ListDirArgs> {
  return {
    name: "list_dir",
    description:
      "List a folder's entries, sorted by name: folders end with `/`, files show their size. Use glob to find files by name pattern across folders.",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args, ws) => readAccess(ws, args.path ?? "."),
    permissionSubject: (args, ws) => pathSubject(ws, args.path ?? "."),
    async execute(args, ctx) {
      const display = args.path ?? ".";
      const resolved = resolveArg(ctx.workspace, display, "list_dir");
      if (resolved.error) return resolved.error;
      const abs = resolved.path;
      let entries: Dirent[];
      try {
        const stat = await fs.stat(abs);
        if (!stat.isDirectory()) return fail(`list_dir: ${display} is a file; use read_file to read it`);
        // A write in progress (or one a crash cut short) is orca's business, not the agent's.
        entries = (await fs.readdir(abs, { withFileTypes: true })).filter((e) => !isTempName(e.name));
      } catch (err) {
        return fsFailure("list_dir", display, err);
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = entries.slice(0, MAX_ENTRIES);
      const lines = await Promise.all(shown.map((e) => describeEntry(abs, e)));
      const rel = ctx.workspace.relative(abs);
      const header = `${rel === "." ? "./" : `${rel}/`} (${plural(entries.length, "entry", "entries")})`;
      if (entries.length === 0) return ok(`${header}\n(empty)`);
      let content = `${header}\n${lines.join("\n")}`;
      if (entries.length > shown.length) {
        content += `\n[… ${entries.length - shown.length} more entries not shown; use glob with a pattern to narrow down]`;
      }
      return ok(content, { path: abs, entries: entries.length });
    },
  };
}

async function describeEntry(dir: string, entry: Dirent): Promise<string> {
  const full = path.join(dir, entry.name);
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) {
    const target = await fs.readlink(full).catch(() => "?");
    const isDir = await fs.stat(full).then((s) => s.isDirectory(), () => false);
    return `${entry.name}${isDir ? "/" : ""} -> ${target}`;
  }
  if (entry.isFile()) {
    const size = await fs.stat(full).then((s) => s.size, () => null);
    return size === null ? entry.name : `${entry.name}  (${formatSize(size)})`;
  }
  return entry.name;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
