import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * Issue #33, item 1: a background process swaps a symlink to a file outside the workspace in and
 * out of `link.txt` while the model writes and edits `link.txt` over and over. The path check
 * (Workspace.resolve) and the write were several awaits apart, and the write followed links: one
 * call in about forty overwrote the outside file. Now the write reaches its file through a walk that
 * follows no symlink, so the outside file never changes, however the calls and the swaps interleave.
 */

const ROUNDS = 25;
const CALLS_PER_ROUND = 12;
const SECRET = "ORIGINAL SECRET, never to be changed by orca\n";

let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;
let swapper: ChildProcess | undefined;

afterEach(async () => {
  swapper?.kill("SIGKILL");
  swapper = undefined;
  await server?.close();
  server = undefined;
  ws?.cleanup();
  ws = undefined;
});

function script(): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const toolCalls = Array.from({ length: CALLS_PER_ROUND }, (_, i) =>
      i % 2 === 0
        ? { id: `w${round}_${i}`, name: "write_file", args: { path: "link.txt", content: `PWNED by write ${round}.${i}\n` } }
        : { id: `e${round}_${i}`, name: "edit_file", args: { path: "link.txt", old_string: "ORIGINAL SECRET", new_string: "PWNED by edit" } },
    );
    replies.push({ toolCalls });
  }
  replies.push({ text: "done" });
  return replies;
}

describe("a symlink swapped in after the check is never followed out of the workspace", () => {
  it("write_file and edit_file on a path a background loop keeps turning into a link to an outside file: the outside file never changes", { timeout: 300_000 }, async () => {
    ws = tempWorkspace();
    const outsideDir = path.join(path.dirname(ws.dir), "outside");
    fs.mkdirSync(outsideDir);
    const target = path.join(outsideDir, "target.txt");
    fs.writeFileSync(target, SECRET);
    const link = ws.file("link.txt");
    // The attacker: link, unlink, as fast as it can, until the test ends.
    swapper = spawn("bash", ["-c", `while :; do ln -s "$1" "$2" 2>/dev/null; rm -f "$2"; done`, "swap", target, link], { stdio: "ignore" });
    // It is running (the link has been seen) before the model starts calling.
    await new Promise<void>((resolve) => {
      const look = () => {
        try {
          if (fs.lstatSync(link).isSymbolicLink()) return resolve();
        } catch {
          // not there this instant
        }
        setImmediate(look);
      };
      look();
    });

    server = await startScriptedServer(script());
    const run = await runOrca(["-p", "keep writing link.txt", "--base-url", server.url, "--yes"], { ws, timeoutMs: 280_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("done");
    // Every call ran and got its answer (the last request carries all of them).
    expect(server.requests).toHaveLength(ROUNDS + 1);

    expect(fs.readFileSync(target, "utf8")).toBe(SECRET);
    expect(fs.readdirSync(outsideDir)).toEqual(["target.txt"]);
    // The race was real: some calls wrote link.txt as a file of the workspace, others were refused.
    const results = server.requests.slice(1).flatMap((r) => r.body.messages.slice(-CALLS_PER_ROUND).map((m) => m.content ?? ""));
    expect(results.some((c) => /^Created link\.txt|^Overwrote link\.txt/.test(c))).toBe(true);
    expect(results.some((c) => /outside the workspace|is a symbolic link now/.test(c))).toBe(true);
  });
});
