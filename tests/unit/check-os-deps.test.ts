import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";

/** The pretest step (scripts/check-os-deps.mjs), run with a PATH that holds only what each case gives it. */

const SCRIPT = path.join(ROOT, "scripts", "check-os-deps.mjs");
let dir: string | undefined;
afterEach(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

/** A PATH folder with these programs, each a script that succeeds (bwrap's probe included). No apt-get, no sudo. */
function pathWith(programs: string[]): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-osdeps-"));
  for (const name of programs) fs.writeFileSync(path.join(dir, name), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  return dir;
}

/** ORCA_PRETEST_INSTALL=0: these cases take programs off PATH, and as root (CI, here) a real apt-get install would follow. */
const check = (PATH: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [SCRIPT], { env: { PATH, HOME: os.tmpdir(), ...env, ORCA_PRETEST_INSTALL: "0" }, encoding: "utf8" });

describe("pretest: the OS programs the tests need", () => {
  it("with none of them and no way to install: one line naming every one, exit 1, nothing installed", () => {
    const run = check(pathWith([]));
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "pretest: the tests need tmux, bwrap, socat, rg, jq, git, curl, openssl, not found on PATH: install them (Debian/Ubuntu: sudo apt-get install tmux bubblewrap socat ripgrep jq git curl openssl) and run npm test again\n",
    );
    expect(fs.readdirSync(dir!)).toEqual([]);
  });

  it("an apt-get or sudo on PATH (node_modules/.bin comes first under npm test) never runs", () => {
    const bin = pathWith(["tmux", "socat", "rg", "jq", "git", "curl", "openssl"]);
    for (const name of ["apt-get", "sudo"]) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho ran > "${bin}/ran-${name}"\n`, { mode: 0o755 });
    const run = check(bin, { CI: "true" });
    expect(run.status).toBe(1);
    expect(fs.readdirSync(bin).filter((n) => n.startsWith("ran-"))).toEqual([]);
  });

  it("installs only with /usr/bin's apt-get: as root directly, in CI through /usr/bin/sudo, never with cached credentials elsewhere", async () => {
    type InstallPlan = (o: { packages: string[]; uid: number; env: Record<string, string>; exists: (p: string) => boolean }) => { command: string; prefix: string[] } | null;
    const { installPlan } = (await import(pathToFileURL(SCRIPT).href)) as { installPlan: InstallPlan };
    const everywhere = () => true;
    const packages = ["tmux", "ripgrep"];
    expect(installPlan({ packages, uid: 0, env: { PATH: "/evil" }, exists: everywhere })).toEqual({ command: "/usr/bin/apt-get", prefix: [] });
    expect(installPlan({ packages, uid: 1000, env: { CI: "true" }, exists: everywhere })).toEqual({ command: "/usr/bin/sudo", prefix: ["-n", "/usr/bin/apt-get"] });
    // A developer's machine: sudo may hold cached credentials; the line says what to run instead.
    expect(installPlan({ packages, uid: 1000, env: {}, exists: everywhere })).toBeNull();
    expect(installPlan({ packages, uid: 0, env: { ORCA_PRETEST_INSTALL: "0" }, exists: everywhere })).toBeNull();
    expect(installPlan({ packages, uid: 0, env: {}, exists: (p) => p !== "/usr/bin/apt-get" })).toBeNull();
  });

  it("names only what is missing", () => {
    const run = check(pathWith(["tmux", "bwrap", "socat", "jq", "git", "curl", "openssl"]));
    expect(run.status).toBe(1);
    expect(run.stderr).toBe("pretest: the tests need rg, not found on PATH: install them (Debian/Ubuntu: sudo apt-get install ripgrep) and run npm test again\n");
  });

  it("all present and the sandbox probe passing: silent, exit 0", () => {
    const run = check(pathWith(["tmux", "bwrap", "socat", "rg", "jq", "git", "curl", "openssl"]));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("bwrap present but unable to make a sandbox: one line saying so", () => {
    const bin = pathWith(["tmux", "socat", "rg", "jq", "git", "curl", "openssl"]);
    fs.writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n", { mode: 0o755 });
    const run = check(bin);
    expect(run.status).toBe(1);
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(run.stderr).toMatch(/^pretest: bubblewrap is installed but cannot create a sandbox here/);
  });

  it("on this machine (everything installed): passes", () => {
    const run = check(process.env.PATH ?? "");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
