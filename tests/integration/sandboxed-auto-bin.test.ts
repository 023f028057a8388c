import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { runReplies, sharedOutsideDir } from "../fixtures/rig.js";
import { countingServer } from "../fixtures/sandbox.js";

/**
 * permissions.sandboxed_commands: auto, through the real bin and real bwrap, headless without
 * --yes (so anything that asks is refused): a command that stays in the no-network
 * workspace-write sandbox runs unasked; leaving the sandbox, a protected path, a path outside
 * the workspace and a deny rule still ask (and so are refused here), and what runs unasked can
 * neither reach the network nor write outside.
 */

const outside = sharedOutsideDir();

const bash = (command: string, extra: Record<string, unknown> = {}): ScriptedReply => ({ toolCalls: [{ name: "bash", args: { command, ...extra } }] });
const AUTO = "permissions:\n  sandboxed_commands: auto\n";

const orca = (replies: ScriptedReply[], config: string | null, extraFiles: Record<string, string> = {}) =>
  runReplies(replies, { files: { ...(config ? { ".orca/config.yaml": config } : {}), ...extraFiles } });

describe("sandboxed_commands: auto (headless, no --yes)", () => {
  it("off (default mode's default): a command that may write is asked, so refused here", async () => {
    const { results, ws } = await orca([bash("echo made > made.txt")], null);
    expect(results[0]).toMatch(/denied/);
    expect(fs.existsSync(ws.file("made.txt"))).toBe(false);
  });

  it("on: a command that stays in the sandbox runs unasked", async () => {
    const { results, ws } = await orca([bash("echo made > made.txt && cat made.txt")], AUTO);
    expect(results[0]).toContain("made");
    expect(fs.readFileSync(ws.file("made.txt"), "utf8")).toBe("made\n");
  });

  it("on: leaving the sandbox, a protected path, a path outside, a deny rule still ask or refuse", async () => {
    const marker = path.join(outside.dir, "escaped");
    const { results, ws } = await orca(
      [
        bash(`echo x > ${marker}`),
        bash("mkdir -p .git && echo '[core]' > .git/config"),
        bash("echo x > ../escaped.txt"),
        bash("echo out > out.txt", { dangerously_disable_sandbox: true }),
        bash("rm -f keep.txt"),
      ],
      `${AUTO}  deny: ["bash(rm *)"]\n`,
      { "keep.txt": "keep\n" },
    );
    for (const result of results) expect(result).toMatch(/denied/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(ws.file(".git"))).toBe(false);
    expect(fs.existsSync(path.join(ws.dir, "..", "escaped.txt"))).toBe(false);
    expect(fs.existsSync(ws.file("out.txt"))).toBe(false);
    expect(fs.existsSync(ws.file("keep.txt"))).toBe(true);
  });

  it("on: what runs unasked cannot reach the network, nor write outside or to a protected path by a route the text hides", async () => {
    const host = await countingServer();
    const marker = path.join(outside.dir, "hidden");
    try {
      const { results, ws } = await orca(
        [
          bash(`curl -sS --max-time 5 http://127.0.0.1:${host.port}/; echo "exit=$?"`),
          bash(`d=.gi; mkdir -p "$d"t 2>&1; echo "[core]" > "$d"t/config 2>&1; echo tried`),
          bash(`printf 'echo x > ${marker}' | sh; echo tried`),
        ],
        AUTO,
      );
      expect(results[0]).toMatch(/exit=[1-9]|denied/);
      expect(host.connections()).toBe(0);
      expect(fs.existsSync(ws.file(".git/config"))).toBe(false);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      await host.close();
    }
  });
});
