import { Box, Text } from "ink";
import type React from "react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { PermissionAnswer, PermissionRequest } from "../tools/approver.js";
import type { PendingPermission } from "./dialog-approver.js";
import { useKeyLayer, useKeymap } from "./hooks/key-layers.js";
import { KeyPriority, keysText } from "./keymap.js";
import { requestRows } from "./request-text.js";
import { terminalSafe } from "../util/terminal-text.js";
import { color } from "./theme.js";

/**
 * Keys typed before the dialog has been on screen this long — or within this long of the last key
 * typed — never answer it: they were meant for the input box, and go there. So a sentence being
 * typed when the dialog appears ("make it…") cannot approve anything with its "a".
 * ORCA_DIALOG_ARM_MS lengthens it (a slow link, where keys arrive late; the end-to-end tests).
 */
export const DIALOG_ARM_MS = Math.max(400, Number(process.env.ORCA_DIALOG_ARM_MS) || 400);

/** Border, title, "asked by" line, status line, answer line. */
const CHROME = 6;

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

/** Rows the dialog would like for a request: all of it, when the screen has room. */
export function dialogWantedRows(request: PermissionRequest, width: number): number {
  return requestRows(request, width - 2).length + CHROME;
}

type Stage = { kind: "choose" } | { kind: "confirm_always" } | { kind: "reason"; text: string };

/** Which agent asks, for which tool and arguments (or the diff), and y / a / n. */
export function PermissionDialog({ pending, queued, label, width, height, onAnswer }: PermissionDialogProps): React.JSX.Element {
  const { request } = pending;
  const keymap = useKeymap();
  const [stage, setStage] = useState<Stage>({ kind: "choose" });
  const [scroll, setScroll] = useState(0);
  const [armed, setArmed] = useState(false);
  const lastKey = useRef(0);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);

  // Armed once the dialog has been on screen, untouched, for DIALOG_ARM_MS; each key restarts the wait.
  const arm = (): void => {
    clearTimeout(timer.current);
    const wait = Math.max(0, lastKey.current + DIALOG_ARM_MS - Date.now());
    timer.current = setTimeout(() => {
      if (Date.now() - lastKey.current >= DIALOG_ARM_MS - 5) setArmed(true);
      else arm();
    }, wait);
  };
  useEffect(() => {
    lastKey.current = Date.now();
    arm();
    return () => clearTimeout(timer.current);
  }, []);

  const rows = useMemo(() => requestRows(request, width - 2), [request, width]);
  const room = Math.max(1, height - CHROME);
  const maxScroll = Math.max(0, rows.length - room);
  const at = Math.min(scroll, maxScroll);
  const by = (n: number): void => setScroll(Math.max(0, Math.min(maxScroll, at + n)));
  const answer = (a: PermissionAnswer): void => onAnswer(pending.id, a);
  const always = request.always;
  const live = (f: () => void) => (): boolean => {
    if (!armed || stage.kind !== "choose") return false;
    f();
    return true;
  };

  useKeyLayer(KeyPriority.Dialog, {
    observe: (press) => {
      if (armed || press.name === "ctrl") return;
      // Still typing: the dialog waits until the keys stop.
      lastKey.current = Date.now();
      arm();
    },
    actions: {
      allow_once: live(() => answer({ decision: "once" })),
      allow_always: () => {
        if (!armed) return false;
        if (stage.kind === "confirm_always") answer({ decision: "always" });
        else if (stage.kind !== "choose") return false;
        else if (always?.broader) setStage({ kind: "confirm_always" });
        else answer({ decision: "always" });
        return true;
      },
      deny: live(() => setStage({ kind: "reason", text: "" })),
      deny_now: () => {
        if (!armed || stage.kind === "reason") return false;
        if (stage.kind === "confirm_always") setStage({ kind: "choose" });
        else answer({ decision: "deny" });
        return true;
      },
      line_up: live(() => by(-1)),
      line_down: live(() => by(1)),
      page_up: live(() => by(-(room - 1))),
      page_down: live(() => by(room - 1)),
    },
    text: (press) => {
      if (!armed) return false;
      // A paste never answers; it may only be the reason's text.
      if (press.pasted && stage.kind !== "reason") return false;
      if (stage.kind === "confirm_always") {
        // Any key but a second "a" goes back to the choice.
        setStage({ kind: "choose" });
        return true;
      }
      if (stage.kind !== "reason") return false;
      if (press.name === "escape") answer({ decision: "deny" });
      else if (press.name === "return") answer(stage.text.trim() ? { decision: "deny", reason: stage.text.trim() } : { decision: "deny" });
      else if (press.name === "backspace") setStage({ kind: "reason", text: stage.text.slice(0, -1) });
      else if (press.name === "text") setStage({ kind: "reason", text: stage.text + press.text.replace(/[\r\n]+/g, " ") });
      return true;
    },
    // Armed, the dialog is modal: keys do not reach the panes. Unarmed, or pasted, they go to the
    // input box; Ctrl+C always reaches the dashboard (it cancels the run, and so this request).
    modal: (press) => armed && (!press.pasted || stage.kind === "reason") && !(press.name === "ctrl" && press.text === "c"),
  });

  const path = (request.args as { path?: unknown } | null)?.path;
  const shown = rows.slice(at, at + room);
  const below = rows.length - at - shown.length;
  const k = (action: Parameters<typeof keysText>[2]): string => keysText(keymap, KeyPriority.Dialog, action);
  let status: React.JSX.Element;
  if (maxScroll > 0) {
    status = (
      <Text wrap="truncate-end" color={color(below > 0 ? "warn" : "muted")}>
        {below > 0 ? `▼ ${below} more line${below === 1 ? "" : "s"} — ${k("line_down")}/${k("page_down")} to read` : `lines ${at + 1}–${at + shown.length} of ${rows.length} · ${k("line_up")} back up`}
      </Text>
    );
  } else status = <Text wrap="truncate-end" color={color("muted")}>{always ? `"always" adds the session rule ${always.rule}` : " "}</Text>;

  let answerLine: React.JSX.Element;
  if (!armed) answerLine = <Text color={color("muted")}>… read the request (keys you type now go to the input box)</Text>;
  else if (stage.kind === "confirm_always")
    answerLine = (
      <Text wrap="truncate-end">
        <Text color={color("warn")} bold>Allow every {always?.rule} call for this session?</Text>
        <Text> {k("allow_always")} again to confirm · any other key goes back</Text>
      </Text>
    );
  else if (stage.kind === "reason")
    answerLine = (
      <Text wrap="truncate-end">
        <Text color={color("error")}>Reason for the model (optional, Enter to deny): </Text>
        {stage.text}
        <Text inverse> </Text>
      </Text>
    );
  else
    answerLine = (
      <Text wrap="truncate-end">
        <Text color={color("ok")} bold>{k("allow_once")}</Text> once · <Text color={color("ok")} bold>{k("allow_always")}</Text> always · <Text color={color("error")} bold>{k("deny")}</Text> deny
        <Text color={color("muted")}> (then a reason) · {k("deny_now")} deny this call</Text>
      </Text>
    );

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="double" borderColor={color("dialog")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("dialog")}>Permission: </Text>
        <Text bold>{terminalSafe(request.agentName)}</Text>
        {label ? <Text color={color("label")}> [{terminalSafe(label)}]</Text> : null}
        <Text> wants to run </Text>
        <Text bold color={color("accent")}>{terminalSafe(request.tool)}</Text>
        {request.preview && typeof path === "string" ? <Text> {terminalSafe(path)}</Text> : null}
        {queued > 0 ? <Text color={color("muted")}> (+{queued} more waiting)</Text> : null}
      </Text>
      <Text color={color("muted")} wrap="truncate-end">asked by {terminalSafe(request.rule)}</Text>
      {shown.map((line, i) => (
        <Text key={at + i} wrap="truncate-end">
          {line || " "}
        </Text>
      ))}
      <Box flexGrow={1} />
      {status}
      {answerLine}
    </Box>
  );
}
