import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { systemPrompt, type RecordedRequest, type ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, perAgent, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Project instructions (AGENTS.md, CLAUDE.md with @imports, the user's own) through the bin: what
 * reaches the model's first request, and what an attacker's repository cannot pull into it.
 */

const delegate = (agent: string, task: string) => ({ name: "delegate", args: { agent, task } });
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const requestsOf = (s: ScriptedServer, id: string): RecordedRequest[] => s.requests.filter((r) => agentOf(r) === id);

/** A git repository at ws.dir with the workspace one folder down (`pkg/`), as a monorepo's package. */
function monorepo(w: TempWorkspace): string {
  execFileSync("git", ["init", "-q", w.dir]);
  const pkg = w.file("pkg");
  write(path.join(w.dir, "AGENTS.md"), "MARKER-REPO-ROOT: use tabs\n");
  write(path.join(pkg, "AGENTS.md"), "MARKER-PKG-AGENTS: run npm test\n");
  write(path.join(pkg, "CLAUDE.md"), "MARKER-PKG-CLAUDE\nSee @docs/style.md for style. Not an import: `@docs/code.md`, mail me@example.com\n```\n@docs/fenced.md\n```\n");
  write(path.join(pkg, "docs", "style.md"), "MARKER-IMPORTED-STYLE\n");
  write(path.join(pkg, "docs", "code.md"), "MARKER-NOT-IMPORTED-CODE\n");
  write(path.join(pkg, "docs", "fenced.md"), "MARKER-NOT-IMPORTED-FENCED\n");
  write(path.join(w.home, ".config", "orca", "AGENTS.md"), "MARKER-USER-OWN\n");
  return pkg;
}

describe("project instructions through the bin", () => {
  it("AGENTS.md from the workspace up to the repository root, CLAUDE.md with its import and the user's own reach the coordinator's first request, in order", async () => {
    const server = await scriptedServer([{ text: "ok" }]);
    const ws = workspace();
    const pkg = monorepo(ws);
    write(path.join(path.dirname(ws.dir), "AGENTS.md"), "MARKER-ABOVE-THE-REPO\n");
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "-w", pkg], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const system = systemPrompt(server.requests[0]!);
    const order = ["MARKER-USER-OWN", "MARKER-REPO-ROOT", "MARKER-PKG-AGENTS", "MARKER-PKG-CLAUDE", "MARKER-IMPORTED-STYLE"].map((m) => system.indexOf(m));
    expect(order.every((i) => i >= 0), system).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    for (const absent of ["MARKER-NOT-IMPORTED-CODE", "MARKER-NOT-IMPORTED-FENCED", "MARKER-ABOVE-THE-REPO"]) expect(system).not.toContain(absent);
    // The import and the files are named in the prompt, so the model knows where a rule came from.
    expect(system).toContain("## docs/style.md (imported by CLAUDE.md)");
    expect(system).toContain("## ../AGENTS.md");
  });

  it("a sub-agent gets them by default; instructions.subagents: false leaves them out, and a definition's instructions: true brings them back", async () => {
    const script = () =>
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "look")] }, { text: "ok" }],
        "explorer-1": [{ text: "looked" }],
      });
    let server = await scriptedServer(script());
    const ws = workspace({ "AGENTS.md": "MARKER-FOR-EVERY-AGENT\n" });
    let run = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(systemPrompt(requestsOf(server, "explorer-1")[0]!)).toContain("MARKER-FOR-EVERY-AGENT");
    await server.close();

    server = await scriptedServer(script());
    write(ws.file(".orca/config.yaml"), "instructions:\n  subagents: false\n");
    run = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(systemPrompt(requestsOf(server, "coordinator")[0]!)).toContain("MARKER-FOR-EVERY-AGENT");
    expect(systemPrompt(requestsOf(server, "explorer-1")[0]!)).not.toContain("MARKER-FOR-EVERY-AGENT");
    await server.close();

    server = await scriptedServer(script());
    write(ws.file(".orca/agents/explorer.md"), "---\nname: explorer\ndescription: reads\ntools: [read_file]\ninstructions: true\n---\nYou explore.\n");
    run = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(systemPrompt(requestsOf(server, "explorer-1")[0]!)).toContain("MARKER-FOR-EVERY-AGENT");
  });

  it("attack: imports and links that lead outside the repository, a read_file deny rule and an import cycle pull nothing in", async () => {
    const server = await scriptedServer([{ text: "ok" }]);
    const ws = workspace();
    const outside = path.dirname(ws.dir);
    write(path.join(outside, "outside-secret.txt"), "MARKER-OUTSIDE-SECRET\n");
    write(path.join(outside, "outside-agents.md"), "MARKER-OUTSIDE-LINKED\n");
    fs.mkdirSync(path.join(outside, "outside-dir"));
    write(path.join(outside, "outside-dir", "notes.md"), "MARKER-OUTSIDE-DIR\n");
    const levels = ws.dir.split(path.sep).length;
    write(
      ws.file("CLAUDE.md"),
      [
        "MARKER-CLAUDE",
        "@../outside-secret.txt",
        `@${"../".repeat(levels)}${outside.slice(1)}/outside-secret.txt`,
        `@${path.join(outside, "outside-secret.txt")}`,
        "@~/../outside-secret.txt",
        "@linked/notes.md",
        "@private.md",
        "@loop-a.md",
        "",
      ].join("\n"),
    );
    fs.symlinkSync(path.join(outside, "outside-agents.md"), ws.file("AGENTS.md"));
    fs.symlinkSync(path.join(outside, "outside-dir"), ws.file("linked"));
    write(ws.file("private.md"), "MARKER-DENIED\n");
    write(ws.file("loop-a.md"), "MARKER-LOOP-A\n@loop-b.md\n");
    write(ws.file("loop-b.md"), "MARKER-LOOP-B\n@loop-a.md\n@CLAUDE.md\n");
    write(ws.file(".orca/config.yaml"), 'permissions:\n  deny: ["read_file(private.md)"]\n');
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    const everything = JSON.stringify(server.requests.map((r) => r.body));
    for (const leaked of ["MARKER-OUTSIDE-SECRET", "MARKER-OUTSIDE-LINKED", "MARKER-OUTSIDE-DIR", "MARKER-DENIED"]) expect(everything).not.toContain(leaked);
    const system = systemPrompt(server.requests[0]!);
    // The rest still loads, each file once, the cycle cut where it closes.
    for (const kept of ["MARKER-CLAUDE", "MARKER-LOOP-A", "MARKER-LOOP-B"]) expect(system.split(kept)).toHaveLength(2);
    expect(run.stderr).toContain("orca: warning: instructions AGENTS.md skipped: resolves outside the workspace");
    expect(run.stderr).toContain("orca: warning: instructions private.md skipped: hidden by the deny rule read_file(private.md)");
    expect(run.stderr).toMatch(/instructions loop-a\.md skipped: import cycle \(CLAUDE\.md → loop-a\.md → loop-b\.md → loop-a\.md\)/);
    expect(run.stderr).not.toContain("MARKER");
  });

  it("past instructions.max_chars a file is skipped and named; the others still load", async () => {
    const server = await scriptedServer([{ text: "ok" }]);
    const ws = workspace({ "AGENTS.md": "MARKER-SMALL\n", "CLAUDE.md": `MARKER-LARGE ${"x".repeat(5_000)}\n`, ".orca/config.yaml": "instructions:\n  max_chars: 1000\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    const system = systemPrompt(server.requests[0]!);
    expect(system).toContain("MARKER-SMALL");
    expect(system).not.toContain("MARKER-LARGE");
    expect(run.stderr).toMatch(/instructions CLAUDE\.md skipped: 5014 (characters|bytes); over what is left of instructions\.max_chars \(\d+ of 1000\)/);
  });
});
