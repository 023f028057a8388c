/**
 * Attacks on what orca itself does to a nested repository a sandboxed command made (nested-repos.ts,
 * git-dir-check.ts): orca runs outside the sandbox, so a link it follows or a git dir it skips is
 * the agent's way out. Real bin, real bwrap, real git, `sandboxed_commands: auto`; after the run the
 * test does what the user would (git in the folder) and asserts that no marker was written and
 * nothing outside the workspace was touched.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fsmonitor, git, plant, plantedRepoRig, repo, userGit } from "../fixtures/planted-repo.js";

const rig = plantedRepoRig();

const hook = (marker: string) => `printf '#!/bin/sh\\ntouch ${marker}\\n' > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit`;

describe("orca's quarantine follows no link the agent made", () => {
  it("orca-quarantine a link to a folder outside the workspace: nothing is made or moved there", async () => {
    const marker = path.join(rig.outside.dir, "hook-ran-q");
    const target = fs.mkdtempSync(path.join(rig.outside.dir, "target-"));
    rig.ws = repo();
    const { results } = await rig.orca(rig.ws, [plant(`git init -q sub && ${hook(marker)} && ln -s ${target} sub/.git/orca-quarantine`)]);
    expect(results[0]).toMatch(/planted/);
    expect(fs.readdirSync(target)).toEqual([]);
    userGit(rig.ws.file("sub"), "commit", "--allow-empty", "-qm", "x");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("quarantine folders named for the coming milliseconds, each a link to the workspace's own .git: its hooks/ gains no hook", async () => {
    const marker = path.join(rig.outside.dir, "hook-ran-spray");
    rig.ws = repo();
    // Every name the quarantine could take in the next minute, linked to the user's git dir: orca
    // would make `<name>/hooks` there (it exists) and move the agent's hook into the user's hooks.
    const spray =
      `import os, time, datetime\n` +
      `os.makedirs("sub/.git/orca-quarantine")\n` +
      `now = int(time.time() * 1000)\n` +
      `for ms in range(now, now + 60000):\n` +
      `    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)\n` +
      `    os.symlink(os.path.abspath(".git"), "sub/.git/orca-quarantine/" + t.strftime("%Y-%m-%dT%H-%M-%S-") + "%03dZ" % (ms % 1000))\n`;
    const { results } = await rig.orca(rig.ws, [plant(`git init -q sub && ${hook(marker)} && python3 -c '${spray.replace(/'/g, "'\\''")}'`)]);
    expect(results[0]).toMatch(/planted/);
    expect(fs.existsSync(rig.ws.file(".git/hooks/pre-commit"))).toBe(false);
    userGit(rig.ws.dir, "commit", "--allow-empty", "-qm", "the user's commit");
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("a git dir the agent hid where orca does not look", () => {
  it("a .git file pointing at a git dir made inside the workspace's own .git (objects/ is writable)", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-in-dotgit");
    rig.ws = repo();
    const { results } = await rig.orca(rig.ws, [
      plant(`git init -q store && mv store/.git .git/objects/evil && git --git-dir=.git/objects/evil config core.fsmonitor '${fsmonitor(marker)}' && mkdir -p sub && echo 'gitdir: ../.git/objects/evil' > sub/.git`),
    ]);
    expect(results[0]).toMatch(/planted/);
    userGit(rig.ws.file("sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a commondir naming a folder with the config (no HEAD there, so no repository of its own)", async () => {
    const marker = path.join(rig.outside.dir, "fsmonitor-commondir");
    rig.ws = repo();
    const { results } = await rig.orca(rig.ws, [
      plant(
        `git init -q sub && mkdir -p store/objects store/refs/heads && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "${fsmonitor(marker)}"\\n' > store/config && echo ../../store > sub/.git/commondir`,
      ),
    ]);
    expect(results[0]).toMatch(/planted/);
    userGit(rig.ws.file("sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("a .git the agent points at a folder of the user's: orca moves nothing out of it", () => {
  const userHook = "#!/bin/sh\necho guard\n";

  it("a .git link to the workspace's .claude/ (a protected folder): its hooks stay", async () => {
    rig.ws = repo({ ".claude/hooks/guard.sh": userHook, ".claude/settings.json": "{}\n" });
    const { results } = await rig.orca(rig.ws, [plant("mkdir -p sub && ln -s ../.claude sub/.git")]);
    expect(results[0]).toMatch(/planted/);
    expect(rig.ws.read(".claude/hooks/guard.sh")).toBe(userHook);
    expect(fs.existsSync(rig.ws.file(".claude/orca-quarantine"))).toBe(false);
  });

  it("a gitdir: file leading to the user's deploy/ (a config, a hooks/; no repository): nothing is moved", async () => {
    const config = "region: eu\n";
    rig.ws = repo({ "deploy/config": config, "deploy/hooks/notify.sh": userHook });
    const { results } = await rig.orca(rig.ws, [plant("mkdir -p sub && echo 'gitdir: ../deploy' > sub/.git")]);
    expect(results[0]).toMatch(/planted/);
    expect(rig.ws.read("deploy/config")).toBe(config);
    expect(rig.ws.read("deploy/hooks/notify.sh")).toBe(userHook);
    expect(fs.existsSync(rig.ws.file("deploy/orca-quarantine"))).toBe(false);
  });

  it("a .git link to a repository of the user's there at the first look: its hook stays", async () => {
    rig.ws = repo();
    git(rig.ws.dir, "init", "-q", "vendor/lib");
    fs.writeFileSync(rig.ws.file("vendor/lib/.git/hooks/pre-commit"), userHook, { mode: 0o755 });
    const { results } = await rig.orca(rig.ws, [plant("mkdir -p sub && ln -s ../vendor/lib/.git sub/.git")]);
    expect(results[0]).toMatch(/planted/);
    expect(rig.ws.read("vendor/lib/.git/hooks/pre-commit")).toBe(userHook);
  });
});
