/**
 * A repository the file tools write (no command) is checked right after the write, not at the next
 * command or at close: meanwhile the user's own git in that folder (another shell, an editor's git
 * integration) would run the agent's fsmonitor. The test runs the user's git while the session is
 * still open — when the last write's result reaches the model, before any command or close.
 * Real bin, a scripted model over real HTTP, real git.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { fsmonitor, plantedRepoRig, repo, userGit } from "../fixtures/planted-repo.js";

const rig = plantedRepoRig();

/** bypass: a write under a `.git` segment does not ask (in other modes it asks the user). */
const BYPASS = "permissions:\n  mode: bypass\n  sandboxed_commands: auto\n";
const ACCEPT_EDITS = "permissions:\n  mode: accept-edits\n  sandboxed_commands: auto\n";
const write = (file: string, content: string): ScriptedReply => ({ toolCalls: [{ name: "write_file", args: { path: file, content } }] });
const config = (marker: string, extra = "") => `[core]\n\trepositoryformatversion = 0\n\tbare = false\n${extra}\tfsmonitor = "${fsmonitor(marker)}"\n`;
/** A git dir at `dir`, its config written first: every later write completes it. */
const gitDir = (dir: string, marker: string, extra = ""): ScriptedReply[] => [
  write(`${dir}/config`, config(marker, extra)),
  write(`${dir}/HEAD`, "ref: refs/heads/main\n"),
  write(`${dir}/objects/x`, "x\n"),
  write(`${dir}/refs/heads/x`, "x\n"),
];

describe("a repository the file tools write is checked right after the write", () => {
  it("sub/.git written file by file: the user's git status in sub, while the session is open, runs no fsmonitor", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-file-tools-dotgit");
    rig.ws = repo({ ".orca/config.yaml": BYPASS });
    let ranWhileOpen = false;
    const { results, run } = await rig.orca(rig.ws, gitDir("sub/.git", marker), () => {
      userGit(rig.ws!.file("sub"), "status");
      ranWhileOpen = fs.existsSync(marker);
    });
    expect(results.every((r) => !/^Error/.test(r)), results.join("\n")).toBe(true);
    expect(ranWhileOpen).toBe(false);
    // The model is told with the write that did it, and the user through the event.
    expect(results.join("\n")).toMatch(/\[orca: sub\/\.git: a git repository .*core\.fsmonitor/);
    expect(run.stdout).toMatch(/"type":"nested_repo_neutralised"[^\n]*"path":"sub\/\.git"/);
  });

  it("a bare repository (no .git segment, so nothing asks): the user's git in it, while the session is open, runs no fsmonitor", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-file-tools-bare");
    rig.ws = repo({ ".orca/config.yaml": ACCEPT_EDITS });
    let ranWhileOpen = false;
    const { results } = await rig.orca(rig.ws, gitDir("tools", marker, "\tworktree = ..\n"), () => {
      userGit(rig.ws!.file("tools"), "status");
      userGit(rig.ws!.dir, "--git-dir=tools", "status");
      ranWhileOpen = fs.existsSync(marker);
    });
    expect(results.every((r) => !/^Error/.test(r)), results.join("\n")).toBe(true);
    expect(ranWhileOpen).toBe(false);
  });

  it("a config written last into the common dir a .git file's git dir names (no HEAD there, no .git segment): checked too", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-file-tools-commondir");
    rig.ws = repo({ ".orca/config.yaml": BYPASS });
    const replies = [
      write("a/HEAD", "ref: refs/heads/main\n"),
      write("a/commondir", "../b\n"),
      write("b/objects/x", "x\n"),
      write("b/refs/heads/x", "x\n"),
      write("sub/.git", "gitdir: ../a\n"),
      write("b/config", config(marker)),
    ];
    let ranWhileOpen = false;
    const { results } = await rig.orca(rig.ws, replies, () => {
      userGit(rig.ws!.file("sub"), "status");
      ranWhileOpen = fs.existsSync(marker);
    });
    expect(results.every((r) => !/^Error/.test(r)), results.join("\n")).toBe(true);
    expect(ranWhileOpen).toBe(false);
  });
});
