import { Box, Text } from "ink";
import type React from "react";
import { useState } from "react";
import type { PendingPermission } from "./dialog-approver.js";
import { useKeyLayer } from "./hooks/key-layers.js";
import type { PermissionAnswer } from "../tools/approver.js";
import { sanitize } from "./state/sanitize.js";

export const DIALOG_LAYER = 300;

export interface PermissionDialogProps {
  pending: PendingPermission;
  /** How many more requests wait behind this one. */
  queued: number;
  /** The asking agent's label, if it has one. */
  label?: string;
  width: number;
  height: number;
  onAnswer(id: number, answer: PermissionAnswer): void;
}

function argLines(args: unknown): string[] {
  if (args && typeof args === "object" && typeof (args as { command?: unknown }).command === "string") {
    return sanitize((args as { command: string }).command).split("\n");
  }
  let json: string;
  try {
    json = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    json = String(args);
  }
  return sanitize(json).split("\n");
}

function diffColor(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---")) return "gray";
  if (line.startsWith("+")) return "green";
  if (line.startsWith("-")) return "red";
  if (line.startsWith("@@")) return "cyan";
  return undefined;
}

/** The lines the dialog shows for a request: the diff preview, or the arguments. */
function dialogBody(request: PendingPermission["request"]): { lines: string[]; preview: boolean } {
  return request.preview ? { lines: sanitize(request.preview).split("\n"), preview: true } : { lines: argLines(request.args), preview: false };
}

/**
 * Rows the dialog needs to show a request whole, at most `max`: it sits below the dashboard, so
 * the panes of the agents still working stay in view while the user decides.
 */
export function dialogHeight(request: PendingPermission["request"], max: number): number {
  // border 2, title, "asked by" line, answer line
  return Math.max(7, Math.min(max, dialogBody(request).lines.length + 5));
}

/** Which agent asks, for which tool and arguments (or the diff), and y / a / n. */
export function PermissionDialog({ pending, queued, label, width, height, onAnswer }: PermissionDialogProps): React.JSX.Element {
  const { request } = pending;
  const [reason, setReason] = useState<string | null>(null);

  useKeyLayer(DIALOG_LAYER, (key) => {
    // Ctrl+C stays with the dashboard: it cancels the run (and so this request).
    if (key.name === "ctrl" && key.text === "c") return false;
    if (key.name === "escape") {
      onAnswer(pending.id, { decision: "deny" });
      return true;
    }
    if (reason !== null) {
      if (key.name === "return") onAnswer(pending.id, reason.trim() ? { decision: "deny", reason: reason.trim() } : { decision: "deny" });
      else if (key.name === "backspace") setReason(reason.slice(0, -1));
      else if (key.name === "text") setReason(reason + key.text.replace(/[\r\n]+/g, " "));
      return true;
    }
    if (key.name === "text") {
      const k = key.text.toLowerCase();
      if (k === "y") onAnswer(pending.id, { decision: "once" });
      else if (k === "a") onAnswer(pending.id, { decision: "always" });
      else if (k === "n") setReason("");
    }
    return true;
  });

  const { lines: body, preview: isPreview } = dialogBody(request);
  const preview = isPreview ? body : undefined;
  const path = (request.args as { path?: unknown } | null)?.path;
  // border 2, title, "asked by" line, answer (or reason) line
  const room = Math.max(1, height - 5);
  const shown = body.length > room ? body.slice(0, room - 1) : body;
  const more = body.length - shown.length;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="double" borderColor="yellow" overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color="yellow">Permission: </Text>
        <Text bold>{request.agentName}</Text>
        {label ? <Text color="magenta"> [{label}]</Text> : null}
        <Text> wants to run </Text>
        <Text bold color="cyan">{request.tool}</Text>
        {preview && typeof path === "string" ? <Text> {sanitize(path)}</Text> : null}
        {queued > 0 ? <Text color="gray"> (+{queued} more waiting)</Text> : null}
      </Text>
      <Text color="gray" wrap="truncate-end">asked by {request.rule}</Text>
      {shown.map((line, i) => (
        <Text key={i} wrap="truncate-end" color={preview ? diffColor(line) : undefined}>
          {line || " "}
        </Text>
      ))}
      {more > 0 ? <Text color="gray">… {more} more line{more === 1 ? "" : "s"}</Text> : null}
      <Box flexGrow={1} />
      {reason === null ? (
        <Text>
          <Text color="green" bold>y</Text> once · <Text color="green" bold>a</Text> always · <Text color="red" bold>n</Text> deny
          <Text color="gray"> (then a reason for the model) · Esc deny this call</Text>
        </Text>
      ) : (
        <Text wrap="truncate-end">
          <Text color="red">Reason for the model (optional, Enter to deny): </Text>
          {reason}
          <Text inverse> </Text>
        </Text>
      )}
    </Box>
  );
}
