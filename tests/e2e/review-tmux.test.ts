/**
 * /review, /diff and /rewind in a real terminal: the built orca in tmux against a scripted model
 * (real HTTP, the openai SDK), driven with keys like a user. An edit lands; /review shows its diff,
 * /diff the session's change, and /rewind 1 puts the file back. CI is removed from orca's
 * environment (Ink would otherwise write only the final frame).
 */
import { describe, expect, it } from "vitest";
import { lastMessage, type RecordedRequest, type ScriptedReply } from "../../src/model/scripted.js";
import { orcaInTmux, scriptedServer, send, workspace } from "./rig.js";

function script(request: RecordedRequest): ScriptedReply {
  const last = lastMessage(request);
  if (last?.role === "tool") return { text: `Done: ${String(last.content).split("\n")[0]?.slice(0, 40)}` };
  if (String(last?.content ?? "") === "edit") return { toolCalls: [{ name: "edit_file", args: { path: "src/a.js", old_string: "const b = 1;", new_string: "const b = 2;" } }] };
  return { text: "noted" };
}

describe("review in tmux", () => {
  it("/review shows the edit's diff, /diff the session's change, /rewind 1 puts the file back", { timeout: 120_000 }, async () => {
    const ws = workspace({ "src/a.js": "const a = 1;\nconst b = 1;\n" });
    const server = await scriptedServer(script);
    const t = orcaInTmux("review", ws, ["-m", "gpt-4.1-mini", "--permission-mode", "accept-edits", "--base-url", server.url], { unset: ["NO_COLOR"] });
    await t.waitFor("the dashboard", (s) => s.includes("Ask orca"));

    await send(t, "edit");
    await t.waitFor("the applied edit", (s) => s.includes("Done: Edited"), 30_000);
    expect(ws.read("src/a.js")).toBe("const a = 1;\nconst b = 2;\n");

    await send(t, "/review");
    await t.waitFor("the review", (s) => {
      expect(s).toContain("modified src/a.js (1 hunk)");
      expect(s).toContain("-const b = 1;");
      expect(s).toContain("+const b = 2;");
    });
    t.keys("Escape");
    await t.waitFor("the review closed", (s) => !s.includes("modified src/a.js (1 hunk)") && s.includes("Ask orca"));

    await send(t, "/diff");
    await t.waitFor("the session's diff", (s) => {
      expect(s).toContain("The session's change against its start: 1 file");
      expect(s).toContain("+const b = 2;");
    });
    t.keys("Escape");
    await t.waitFor("the diff closed", (s) => !s.includes("The session's change against") && s.includes("Ask orca"));

    await send(t, "/rewind 1");
    await t.waitFor("the rewind's notice", (s) => s.includes("rewound to edit: 1 file restored (src/a.js)"));
    expect(ws.read("src/a.js")).toBe("const a = 1;\nconst b = 1;\n");
  });
});
