import { Box, Text } from "ink";
import { useArming } from "./hooks/use-arming.js";
import type React from "react";
import { useMemo, useState } from "react";
import type { PermissionAnswer, PermissionRequest } from "../tools/approver.js";
import type { PendingPermission } from "./dialog-approver.js";
import { useKeyLayer, useKeymap } from "./hooks/key-layers.js";
import { KeyPriority, keysText } from "./keymap.js";
import { requestRows } from "./request-text.js";
import { terminalSafe } from "../util/terminal-text.js";
import { parseRuleList } from "../tools/permissions/suggest.js";
import { errorLine } from "../util/text.js";
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
  /** The agents (ids) whose requests wait behind this one, in order. */
  waitingFrom?: readonly string[];
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

type Scope = "session" | "project" | "user";
const SCOPE_TEXT: Record<Scope, string> = { session: "for this session", project: "in this project (.orca/config.yaml)", user: "for you (~/.config/orca/config.yaml)" };

type Stage = { kind: "choose" } | { kind: "confirm_always"; scope: Scope } | { kind: "reason"; text: string } | { kind: "edit_rule"; text: string; error?: string };

/** "tester-1, tester-1, explorer-2" → "tester-1 ×2, explorer-2". */
function whoWaits(ids: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].map(([id, n]) => (n > 1 ? `${id} ×${n}` : id)).join(", ");
}

/** Which agent asks, for which tool and arguments (or the diff), and y / a / n. */
export function PermissionDialog({ pending, queued, waitingFrom = [], label, width, height, onAnswer }: PermissionDialogProps): React.JSX.Element {
  const { request } = pending;
  const keymap = useKeymap();
  const [stage, setStage] = useState<Stage>({ kind: "choose" });
  const [scroll, setScroll] = useState(0);
  // Armed once the dialog has been on screen, untouched, for DIALOG_ARM_MS; each key restarts the wait.
  const { armed, observe } = useArming(DIALOG_ARM_MS);

  const rows = useMemo(() => requestRows(request, width - 2), [request, width]);
  const room = Math.max(1, height - CHROME);
  const maxScroll = Math.max(0, rows.length - room);
  const at = Math.min(scroll, maxScroll);
  const by = (n: number): void => setScroll(Math.max(0, Math.min(maxScroll, at + n)));
  const answer = (a: PermissionAnswer): void => onAnswer(pending.id, a);
  const offer = request.always;
  const [ruleText, setRuleText] = useState<string | undefined>(undefined);
  const savedRule = ruleText ?? offer?.rule;
  const answerAlways = (scope: Scope): void =>
    answer({ decision: "always", ...(ruleText !== undefined ? { rule: ruleText } : {}), ...(scope !== "session" ? { scope } : {}) });
  // A rule wider than this exact call asks for the same key again.
  const always = (scope: Scope) => (): boolean => {
    if (!armed) return false;
    if (stage.kind === "confirm_always" && stage.scope === scope) answerAlways(scope);
    else if (stage.kind !== "choose") return false;
    else if (request.always?.broader) setStage({ kind: "confirm_always", scope });
    else answerAlways(scope);
    return true;
  };
  const live = (f: () => void) => (): boolean => {
    if (!armed || stage.kind !== "choose") return false;
    f();
    return true;
  };

  useKeyLayer(KeyPriority.Dialog, {
    // Still typing: the dialog waits until the keys stop.
    observe,
    actions: {
      allow_once: live(() => answer({ decision: "once" })),
      allow_always: always("session"),
      // Leaving the sandbox is approved for this session at most.
      allow_project: () => !request.outsideSandbox && always("project")(),
      allow_user: () => !request.outsideSandbox && always("user")(),
      edit_rule: live(() => {
        if (offer && !request.outsideSandbox) setStage({ kind: "edit_rule", text: savedRule ?? "" });
      }),
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
      if (stage.kind === "edit_rule") {
        if (press.name === "escape") setStage({ kind: "choose" });
        else if (press.name === "return") {
          const problem = ruleProblem(stage.text);
          if (problem) setStage({ ...stage, error: problem });
          else {
            setRuleText(stage.text.trim());
            setStage({ kind: "choose" });
          }
        } else if (press.name === "backspace") setStage({ kind: "edit_rule", text: stage.text.slice(0, -1) });
        else if (press.name === "text") setStage({ kind: "edit_rule", text: stage.text + press.text.replace(/[\r\n]+/g, " ") });
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
    // Esc is the dialog's, armed or not: it denies this call at most, never cancels the run.
    modal: (press) =>
      press.name === "escape" || (armed && (!press.pasted || stage.kind === "reason" || stage.kind === "edit_rule") && !(press.name === "ctrl" && press.text === "c")),
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
  } else
    status = (
      <Text wrap="truncate-end" color={color("muted")}>
        {offer ? `"always" adds the session rule ${savedRule}${queued > 0 ? " and approves every waiting call it covers" : ""}${offer.exact && ruleText === undefined ? ` (${k("edit_rule")} to edit, e.g. to ${offer.exact})` : ""}` : " "}
      </Text>
    );

  let answerLine: React.JSX.Element;
  if (!armed) answerLine = <Text color={color("muted")}>… read the request (keys you type now go to the input box)</Text>;
  else if (stage.kind === "confirm_always")
    answerLine = (
      <Text wrap="truncate-end">
        <Text color={color("warn")} bold>Allow every {savedRule} call {SCOPE_TEXT[stage.scope]}?</Text>
        <Text> {k(stage.scope === "session" ? "allow_always" : stage.scope === "project" ? "allow_project" : "allow_user")} again to confirm · any other key goes back</Text>
      </Text>
    );
  else if (stage.kind === "edit_rule")
    answerLine = (
      <Text wrap="truncate-end">
        <Text color={color(stage.error ? "error" : "warn")}>{stage.error ? `${stage.error} — ` : ""}Rule (Enter keeps it, Esc drops the edit): </Text>
        {stage.text}
        <Text inverse> </Text>
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
        <Text color={color("ok")} bold>{k("allow_once")}</Text> once · <Text color={color("ok")} bold>{k("allow_always")}</Text> always
        {request.outsideSandbox ? null : (
          <Text>
            {" "}(<Text color={color("ok")} bold>{k("allow_project")}</Text> project · <Text color={color("ok")} bold>{k("allow_user")}</Text> you)
          </Text>
        )}{" "}
        · <Text color={color("error")} bold>{k("deny")}</Text> deny
        <Text color={color("muted")}> · {k("deny_now")} deny this call (the run goes on) · Ctrl+C cancel run</Text>
      </Text>
    );

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="double" borderColor={color("dialog")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("dialog")}>Permission: </Text>
        <Text bold>{terminalSafe(request.agentId)}</Text>
        {request.agentId.includes(request.agentName) ? null : <Text> ({terminalSafe(request.agentName)})</Text>}
        {label ? <Text color={color("label")}> [{terminalSafe(label)}]</Text> : null}
        <Text> wants to run </Text>
        <Text bold color={color("accent")}>{terminalSafe(request.tool)}</Text>
        {request.preview && typeof path === "string" ? <Text> {terminalSafe(path)}</Text> : null}
        {queued > 0 ? <Text color={color("warn")}> (+{queued} more waiting{waitingFrom.length ? `: ${terminalSafe(whoWaits(waitingFrom))}` : ""})</Text> : null}
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

/** Why an edited rule cannot be saved (one line), or null. */
function ruleProblem(text: string): string | null {
  if (!text.trim()) return "empty rule";
  try {
    parseRuleList(text);
    return null;
  } catch (error) {
    return errorLine(error);
  }
}
