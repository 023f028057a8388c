import { Box, Text } from "ink";
import type React from "react";
import { formatCost, formatDuration, formatTokens } from "./format.js";
import type { DashboardState } from "./state/types.js";

export interface HeaderProps {
  state: DashboardState;
  model: string;
  workspace: string;
  sessionId: string;
  startedAt: number;
  now: number;
  demo: boolean;
  busy: boolean;
}

function shortPath(path: string, max: number): string {
  const home = process.env.HOME;
  const p = home && path.startsWith(home) ? `~${path.slice(home.length)}` : path;
  return p.length > max ? `…${p.slice(p.length - max + 1)}` : p;
}

/** model · workspace · session (and whether it was resumed) · tokens · cost · elapsed, and the demo badge. */
export function Header({ state, model, workspace, sessionId, startedAt, now, demo, busy }: HeaderProps): React.JSX.Element {
  const t = state.totals;
  const tokens = t.input + t.output;
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        {demo ? (
          <Text backgroundColor="yellow" color="black" bold>
            {" SCRIPTED DEMO "}
          </Text>
        ) : null}
        <Text bold color="cyan">
          {demo ? " " : ""}orca
        </Text>
        <Text color="gray"> · </Text>
        <Text>{state.session.model ?? model}</Text>
        <Text color="gray"> · </Text>
        <Text>{shortPath(state.session.workspace ?? workspace, 40)}</Text>
        <Text color="gray"> · session {sessionId}</Text>
        {state.session.resumed ? <Text color="magenta"> resumed</Text> : null}
        <Text color="gray"> · </Text>
        <Text>
          {formatTokens(tokens)} tok{t.cached ? ` (${formatTokens(t.cached)} cached)` : ""}
        </Text>
        {t.cost !== undefined ? <Text> · {formatCost(t.cost)}</Text> : null}
        <Text color="gray"> · {formatDuration(now - startedAt)}</Text>
        {busy ? <Text color="cyan"> · running</Text> : null}
      </Text>
    </Box>
  );
}

/** Running and waiting tool calls; what the first waiting call waits on. */
export function QueueLine({ state }: { state: DashboardState }): React.JSX.Element {
  const calls = Object.values(state.active);
  const running = calls.filter((c) => c.state === "running");
  const waiting = calls.filter((c) => c.state === "waiting" || c.state === "queued");
  const { scheduler } = state;
  const runningCount = Math.max(scheduler.running, running.length);
  const waitingCount = Math.max(scheduler.waiting, waiting.length);
  const asking = calls.filter((c) => c.state === "asking").length;
  const first = waiting.find((c) => c.waitsFor.length > 0);
  let detail = "";
  if (first) {
    const agent = state.agents[first.agentId];
    const who = agent ? `${agent.name}${agent.label ? ` [${agent.label}]` : ""}` : first.agentId;
    const blockers = first.blockers?.length ? first.blockers : first.waitsFor;
    // Who waits for whom first: on a narrow terminal the call itself is what gets cut.
    detail = ` │ ${who} waits for ${blockers.join(", ")}: ${`${first.name} ${first.summary}`.trim()}`;
  } else if (running.length) {
    detail = ` │ ${running
      .slice(0, 4)
      .map((c) => `${c.name} ${c.summary}`.trim())
      .join(" · ")}`;
  }
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        <Text color={runningCount ? "cyan" : "gray"}>⚙ {runningCount} running</Text>
        <Text color={waitingCount ? "yellow" : "gray"}> · {waitingCount} waiting</Text>
        {asking ? <Text color="yellow"> · {asking} asking</Text> : null}
        {state.conflicts ? <Text color="red"> · {state.conflicts} write conflict{state.conflicts === 1 ? "" : "s"}</Text> : null}
        <Text color="gray">{detail}</Text>
      </Text>
    </Box>
  );
}

export function KeyHints({ hints, notice }: { hints: string; notice?: string }): React.JSX.Element {
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        {notice ? <Text color="yellow">{notice} </Text> : null}
        <Text color="gray">{hints}</Text>
      </Text>
    </Box>
  );
}

