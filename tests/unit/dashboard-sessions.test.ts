import { describe, expect, it } from "vitest";
import { dashboardSessions, formatSessions } from "../../src/cli/sessions-command.js";
import type { SessionInfo } from "../../src/sessions/store.js";

const session = (id: string, over: Partial<SessionInfo> = {}): SessionInfo => ({
  id,
  file: `/data/sessions/${id}.jsonl`,
  workspace: "/work/project",
  model: "gpt-4o",
  startedAt: 1_700_000_000_000,
  lastActiveAt: 1_700_000_000_000,
  firstPrompt: `prompt of ${id}`,
  answered: true,
  demo: false,
  status: "idle",
  resumes: 0,
  ...over,
});

describe("/sessions in the dashboard", () => {
  const sessions = [
    session("live", { status: "interrupted" }),
    session("failed-start", { answered: false, status: "failed" }),
    session("demo", { demo: true }),
    session("elsewhere", { workspace: "/work/other" }),
    session("crashed", { status: "interrupted", resumes: 2 }),
    session("done"),
  ];

  it("lists what orca sessions lists for this folder, and calls the running one this session, not interrupted", () => {
    expect(dashboardSessions(sessions, "/work/project", "live").map((s) => [s.id, s.status])).toEqual([
      ["live", "this session"],
      ["crashed", "interrupted (resumed 2×)"],
      ["done", "idle"],
    ]);
    // The same sessions orca sessions shows, for this workspace.
    const cli = formatSessions("/data", {}, sessions).join("\n");
    for (const id of ["failed-start", "demo"]) expect(cli).not.toContain(`${id} `);
  });
});
