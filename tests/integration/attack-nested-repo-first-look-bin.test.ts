/**
 * The first look races the file tools: in accept-edits mode write_file writes a bare repository's
 * files (no path has a `.git` segment, so nothing asks) before any command runs. Were the first
 * look taken at the first command, it would record that folder as the user's (pinned, never
 * checked), and the user's `git -C tools status` would run its fsmonitor. Through the real bin, a
 * scripted model over real HTTP, real bwrap and real git.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { bash, fsmonitor, plantedRepoRig, repo, userGit } from "../fixtures/planted-repo.js";

const rig = plantedRepoRig();

const ACCEPT_EDITS = "permissions:\n  mode: accept-edits\n  sandboxed_commands: auto\n";
const write = (file: string, content: string): ScriptedReply => ({ toolCalls: [{ name: "write_file", args: { path: file, content } }] });
/** A bare repository in tools/, written file by file, whose config runs `marker`'s command. */
const bareRepo = (marker: string): ScriptedReply[] => [
  write("tools/HEAD", "ref: refs/heads/main\n"),
  write("tools/objects/x", "x\n"),
  write("tools/refs/heads/x", "x\n"),
  write("tools/config", `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "${fsmonitor(marker)}"\n`),
];

describe("a bare repository the file tools write is a command's, not the user's", () => {
  it("written before any command, then a command runs: the user's git in tools/ runs no fsmonitor", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-first-look");
    rig.ws = repo({ ".orca/config.yaml": ACCEPT_EDITS });
    const { results } = await rig.orca(rig.ws, [...bareRepo(marker), bash("echo ran")]);
    expect(results.slice(0, 4).every((r) => !/^Error/.test(r))).toBe(true);
    expect(results[4]).toMatch(/ran/);
    userGit(rig.ws.file("tools"), "status");
    userGit(rig.ws.dir, "--git-dir=tools", "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("written with no command at all: the check at close finds it", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-no-command");
    rig.ws = repo({ ".orca/config.yaml": ACCEPT_EDITS });
    const { run } = await rig.orca(rig.ws, bareRepo(marker));
    userGit(rig.ws.file("tools"), "status");
    userGit(rig.ws.dir, "--git-dir=tools", "status");
    expect(fs.existsSync(marker)).toBe(false);
    expect(run.stdout).toMatch(/"type":"nested_repo_neutralised"[^\n]*"path":"tools"/);
  });
});
