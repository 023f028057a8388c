import type { PermissionRequest } from "../tools/approver.js";
import { paint } from "./theme.js";
import { diffLine } from "./wrap.js";
import { wrapStyled } from "./wrap-styled.js";

/**
 * What the permission dialog shows of a request, made so nothing can hide: the whole command,
 * wrapped (never cut); control characters, escape sequences, invisible and direction-changing
 * characters shown as marked `\xNN` / `\u{…}` codes; a long run of spaces shown as its length, so
 * `echo safe<300 spaces>&& touch X` shows the `&& touch X` it would otherwise push off screen.
 */

// C0/C1 controls and DEL (newline is kept as a line break), zero-width and bidi controls, BOM.
const HIDDEN = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/gu;
const SPACE_RUN = / {4,}/g;

function code(ch: string): string {
  const n = ch.codePointAt(0)!;
  if (ch === "\t") return "\\t";
  if (ch === "\r") return "\\r";
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u{${n.toString(16)}}`;
}

/** One line of untrusted text with every hidden thing made visible (marked, as ANSI). */
export function visibleLine(line: string): string {
  const mark = (s: string): string => paint("warn", s, { inverse: true });
  return line.replace(HIDDEN, (ch) => mark(code(ch))).replace(SPACE_RUN, (run) => ` ${mark(`⟨${run.length} spaces⟩`)} `);
}

function argText(args: unknown): string[] {
  if (args && typeof args === "object" && typeof (args as { command?: unknown }).command === "string") {
    return (args as { command: string }).command.replace(/\r\n/g, "\n").split("\n");
  }
  let json: string;
  try {
    json = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    json = String(args);
  }
  return json.split("\n");
}

const cache = new WeakMap<PermissionRequest, { width: number; rows: string[] }>();

/** The request's body as rows of at most `width` columns: the diff preview, or the arguments. */
export function requestRows(request: PermissionRequest, width: number): string[] {
  const hit = cache.get(request);
  if (hit && hit.width === width) return hit.rows;
  const rows = buildRows(request, Math.max(1, width));
  cache.set(request, { width, rows });
  return rows;
}

function buildRows(request: PermissionRequest, w: number): string[] {
  if (request.preview) {
    return request.preview
      .replace(/\n$/, "")
      .split("\n")
      .flatMap((l) => wrapStyled(diffLine(visibleLine(l), Number.MAX_SAFE_INTEGER), w, false));
  }
  return argText(request.args).flatMap((l) => (l === "" ? [""] : wrapStyled(visibleLine(l), w, false)));
}
