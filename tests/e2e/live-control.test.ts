/**
 * Live control in a real terminal: orca's dashboard in tmux on a scripted model served by this
 * test. Tab to a running sub-agent and Enter sends it a message (shown in its pane once it reads
 * it); x stops only the focused pane; Ctrl+B sends a sub-agent to the background and the
 * coordinator's turn ends while it runs. Needs a build (`npm run build`); CI is removed from
 * orca's environment because with CI set Ink writes only the final frame.
 */
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply, ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, perAgent, type TempWorkspace } from "../fixtures/harness.js";
import { lineWith, orcaInTmux, scriptedServer, workspace } from "./rig.js";

function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** orca's dashboard with an initial prompt, in tmux, on the test's scripted server. */
const startOrca = (name: string, w: TempWorkspace, url: string, prompt: string) => orcaInTmux(name, w, ["--base-url", url, prompt]);
const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);
const delegate = (task: string, label: string, extra: Record<string, unknown> = {}) => ({ name: "delegate", args: { agent: "explorer", task, label, ...extra } });
const toolTexts = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
type Step = ScriptedReply | ((r: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

describe("live control in tmux", () => {
  it("Tab + a message reaches that sub-agent and shows in its pane; x stops only the focused pane", { timeout: 90_000 }, async () => {
    const alphaGoesOn = gate();
    const alphaEnds = gate();
    const script: Record<string, Step[]> = {
      coordinator: [{ toolCalls: [delegate("look at A", "alpha"), delegate("look at B", "beta")] }, { text: "report: alpha answered, beta stopped" }],
      "explorer-1": [async () => (await alphaGoesOn.opened, { toolCalls: [{ name: "list_dir", args: { path: "." } }] }), async () => (await alphaEnds.opened, { text: "alpha answer" })],
      "explorer-2": [{ kind: "hang" }],
    };
    const server = await scriptedServer(perAgent(script));
    const t = startOrca("steer", workspace({ "a.txt": "a\n" }), server.url, "go");
    await t.waitFor("both panes running", (s) => /explorer-1 \[alpha\] running/.test(s) && /explorer-2 \[beta\] running/.test(s), 30_000);

    t.keys("Tab");
    await t.waitFor("the input box addressing alpha", (s) => s.includes("explorer-1 [alpha] › "));
    t.keys("-l", "steer-now: only src");
    t.keys("Enter");
    await t.waitFor("the message queued", (s) => s.includes("sent to explorer: it reads it before its next step"));
    alphaGoesOn.open();
    // Delivered before alpha's next request, and shown in its pane then.
    await expect.poll(() => requestsOf(server, "explorer-1").length, { timeout: 20_000 }).toBe(2);
    const second = requestsOf(server, "explorer-1")[1]!;
    expect(second.body.messages.at(-1)).toEqual({ role: "user", content: "steer-now: only src" });
    t.keys("z");
    await t.waitFor("alpha's transcript", (s) => {
      expect(s).toContain("Esc/q/z back");
      expect(s).toContain("steer-now: only src");
      expect(s).toContain("task: look at A");
    });
    t.keys("Escape");
    await t.waitFor("the grid again", (s) => !s.includes("Esc/q/z back"));
    for (const r of [...requestsOf(server, "explorer-2"), ...requestsOf(server, "coordinator")]) expect(JSON.stringify(r.body.messages)).not.toContain("steer-now");

    // Beta hangs in its first request: x on its pane stops it, and only it.
    t.keys("Tab");
    await t.waitFor("beta focused", (s) => s.includes("x/Esc stop explorer") && s.includes("explorer-2 [beta] › "));
    t.keys("x");
    await t.waitFor("beta cancelled", (s) => {
      expect(s).toMatch(/explorer-2 \[beta\] cancelled/);
      expect(lineWith(s, "explorer-1 [alpha]")).toContain("running");
      expect(lineWith(s, "coordinator")).toContain("running");
    });

    alphaEnds.open();
    await t.waitFor("the coordinator's report", (s) => s.includes("report: alpha answered, beta stopped") && s.includes("Ask orca"), 30_000);
    const [alpha, beta] = toolTexts(requestsOf(server, "coordinator")[1]!);
    expect(alpha).toContain("status: done");
    expect(beta).toContain("status: cancelled");
    expect(beta).toContain(`(resume it with delegate {"resume": "explorer-2", "task": "…"})`);
    t.keys("C-c");
    await t.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
  });

  it("Ctrl+B sends the focused sub-agent to the background: the coordinator's turn ends while it runs", { timeout: 90_000 }, async () => {
    const gammaEnds = gate();
    const script: Record<string, Step[]> = {
      coordinator: [
        { toolCalls: [delegate("look at C", "gamma")] },
        { text: "turn over; gamma works on" },
        { text: "gamma reported back" },
      ],
      "explorer-1": [async () => (await gammaEnds.opened, { text: "gamma answer" })],
    };
    const server = await scriptedServer(perAgent(script));
    const t = startOrca("background", workspace(), server.url, "go");
    await t.waitFor("gamma running", (s) => /explorer-1 \[gamma\] running/.test(s), 30_000);
    t.keys("Tab");
    await t.waitFor("gamma focused", (s) => s.includes("Ctrl+B background"));
    t.keys("C-b");
    await t.waitFor("the coordinator's turn over while gamma runs", (s) => {
      expect(s).toContain("turn over; gamma works on");
      expect(s).toContain("waiting for background sub-agents: explorer-1");
      expect(lineWith(s, "explorer-1 [gamma]")).toMatch(/running · bg/);
      expect(s).toContain("moved to the background: its parent goes on");
    });
    const moved = toolTexts(requestsOf(server, "coordinator")[1]!)[0]!;
    expect(moved).toContain("explorer-1 (explorer, \"gamma\") was moved to the background by the user and keeps running");
    expect(requestsOf(server, "explorer-1")[0]!.finishedAt).toBeUndefined();

    gammaEnds.open();
    await t.waitFor("the result delivered and answered", (s) => s.includes("gamma reported back") && s.includes("Ask orca"), 30_000);
    const delivered = requestsOf(server, "coordinator")[2]!.body.messages.at(-1)!;
    expect(delivered.role).toBe("user");
    expect(delivered.content).toMatch(/^\[background sub-agent explorer-1 ended\]/);
    expect(delivered.content).toContain("gamma answer");
    t.keys("C-c");
    await t.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
  });
});
