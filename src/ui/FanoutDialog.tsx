import { Box, Text } from "ink";
import type React from "react";
import { useMemo, useState } from "react";
import type { FanoutQuestion, PermissionAnswer } from "../tools/approver.js";
import { formatCost } from "./format.js";
import type { PendingPermission } from "./dialog-approver.js";
import { useKeyLayer, useKeymap } from "./hooks/key-layers.js";
import { useArming } from "./hooks/use-arming.js";
import { KeyPriority, keysText } from "./keymap.js";
import { DIALOG_ARM_MS } from "./PermissionDialog.js";
import { visibleLine } from "./request-text.js";
import { terminalSafe } from "../util/terminal-text.js";
import { color } from "./theme.js";
import { wrapStyled } from "./wrap-styled.js";

/** Border, title, reason line, estimate line, answer line. */
const CHROME = 7;

const usd = (value: number | null): string => (value === null ? "cost unknown" : `~${formatCost(value)}`);

/** One row per sub-agent it would start (name, label, estimate, the task's first words), then how the estimate was made. */
function fanoutRows(question: FanoutQuestion, width: number): string[] {
  const rows = question.agents.map((a, i) => {
    const task = a.task.replace(/\s+/g, " ").trim();
    return visibleLine(`${i + 1}. ${a.agent}${a.label ? ` [${a.label}]` : ""} · ${usd(a.estimateUsd)} · ${task}`);
  });
  return [...rows.flatMap((r) => wrapStyled(r, Math.max(1, width), false).slice(0, 2)), "", ...wrapStyled(`Estimate: ${question.how}.`, Math.max(1, width), false)];
}

/** Rows the fan-out question would like: every agent, when the screen has room. */
export function fanoutWantedRows(question: FanoutQuestion, width: number): number {
  return fanoutRows(question, width - 2).length + CHROME;
}

export interface FanoutDialogProps {
  pending: PendingPermission & { request: { fanout: FanoutQuestion } };
  queued: number;
  width: number;
  height: number;
  onAnswer(id: number, answer: PermissionAnswer): void;
}

/**
 * A turn wants to start more sub-agents at once (or at a higher estimate) than the config lets it
 * without asking: the agents, their tasks and the estimate; y starts them all, n or Esc none.
 * Armed like the permission dialog (hooks/use-arming.ts), so keys typed as it appears never answer it.
 */
export function FanoutDialog({ pending, queued, width, height, onAnswer }: FanoutDialogProps): React.JSX.Element {
  const { request } = pending;
  const question = request.fanout;
  const keymap = useKeymap();
  const { armed, observe } = useArming(DIALOG_ARM_MS);
  const [scroll, setScroll] = useState(0);

  const rows = useMemo(() => fanoutRows(question, width - 2), [question, width]);
  const room = Math.max(1, height - CHROME);
  const maxScroll = Math.max(0, rows.length - room);
  const at = Math.min(scroll, maxScroll);
  const answer = (a: PermissionAnswer): void => onAnswer(pending.id, a);
  const live = (f: () => void) => (): boolean => {
    if (!armed) return false;
    f();
    return true;
  };
  useKeyLayer(KeyPriority.Dialog, {
    observe,
    actions: {
      allow_once: live(() => answer({ decision: "once" })),
      deny: live(() => answer({ decision: "deny" })),
      deny_now: live(() => answer({ decision: "deny" })),
      line_up: live(() => setScroll(Math.max(0, at - 1))),
      line_down: live(() => setScroll(Math.min(maxScroll, at + 1))),
    },
    modal: (press) => armed && !press.pasted && !(press.name === "ctrl" && press.text === "c"),
  });

  const k = (action: Parameters<typeof keysText>[2]): string => keysText(keymap, KeyPriority.Dialog, action);
  const shown = rows.slice(at, at + room);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="double" borderColor={color("dialog")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("dialog")}>Fan-out: </Text>
        <Text bold>{terminalSafe(request.agentName)}</Text>
        <Text> wants to start </Text>
        <Text bold color={color("accent")}>{question.agents.length} sub-agents</Text>
        <Text> at once</Text>
        {queued > 0 ? <Text color={color("muted")}> (+{queued} more waiting)</Text> : null}
      </Text>
      <Text color={color("warn")} wrap="truncate-end">
        asked because: {terminalSafe(question.reason)}
      </Text>
      <Text wrap="truncate-end">estimated cost of them all: {usd(question.estimateUsd)}</Text>
      {shown.map((line, i) => (
        <Text key={at + i} wrap="truncate-end">
          {line || " "}
        </Text>
      ))}
      <Box flexGrow={1} />
      {armed ? (
        <Text wrap="truncate-end">
          <Text color={color("ok")} bold>{k("allow_once")}</Text> start them all · <Text color={color("error")} bold>{k("deny")}</Text>/
          <Text color={color("error")} bold>{k("deny_now")}</Text> start none (the model is told)
        </Text>
      ) : (
        <Text color={color("muted")}>… read the request (keys you type now go to the input box)</Text>
      )}
    </Box>
  );
}
