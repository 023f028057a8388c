/**
 * `orca` without a prompt in a real terminal opens on the welcome screen (what was loaded, and
 * the keys), which gives way to the conversation at the first message. Needs a build; CI is
 * removed from orca's environment because with CI set Ink writes only the final frame.
 */
import { describe, expect, it } from "vitest";
import { orcaInTmux, scriptedServer, workspace } from "./rig.js";

describe("the welcome screen in tmux", () => {
  it("shows model, workspace, agents, skills, MCP and keys at 80×24, then the conversation after the first message", { timeout: 60_000 }, async () => {
    const ws = workspace({ "README.md": "# w\n" });
    const server = await scriptedServer([{ text: "WELCOME-ANSWER: hello" }]);
    const t = orcaInTmux("welcome", ws, ["--base-url", server.url, "-m", "welcome-model"], { columns: 80, rows: 24 });

    await t.waitFor("the welcome", (s) => {
      expect(s).toMatch(/model\s+welcome-model · http:\/\/127\.0\.0\.1:\d+\/v1/);
      expect(s).toMatch(/workspace\s+\/.*\/ws/);
      expect(s).toMatch(/agents\s+coordinator \(you talk to it\) · editor · explorer · tester/);
      expect(s).toMatch(/skills\s+\S/);
      expect(s).toMatch(/MCP\s+none configured/);
      expect(s).toMatch(/keys\s+Enter send/);
      // Nothing in it is cut at 80 columns.
      expect(s).not.toMatch(/type a task below.*…/);
    });

    t.keys("-l", "say hello");
    t.keys("Enter");
    await t.waitFor("the answer", (s) => {
      expect(s).toContain("WELCOME-ANSWER: hello");
      expect(s).toContain("say hello");
      expect(s).not.toContain("you talk to it");
    });
    expect(server.requests).toHaveLength(1);

    t.keys("C-c");
    await t.waitFor("orca to exit", (s) => s.includes("EXIT=0"));
  });
});
