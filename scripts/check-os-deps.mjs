#!/usr/bin/env node
// `npm test`'s pretest: the programs the suite needs from the OS. Present: silent and fast (a PATH
// scan and one bwrap probe). Missing: installed with /usr/bin/apt-get when running as root (a fresh
// Debian machine, a container) or in CI through /usr/bin/sudo -n; otherwise one line naming what
// to install and exit 1 — never a suite of failures that each say less. Never a program found on
// PATH (under npm, node_modules/.bin comes first), and never a developer's cached sudo credentials.
// ORCA_PRETEST_INSTALL=0 never installs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const APT_GET = "/usr/bin/apt-get";
const SUDO = "/usr/bin/sudo";

/** command → Debian/Ubuntu package, and why the tests need it. */
const NEEDED = [
  ["tmux", "tmux", "the end-to-end dashboard tests"],
  ["bwrap", "bubblewrap", "every sandbox test runs the real one"],
  ["socat", "socat", "the sandbox's network allow-list"],
  ["rg", "ripgrep", "the search tools"],
  ["jq", "jq", "the hook tests' scripts"],
  ["git", "git", "worktrees and orca's own git"],
  ["curl", "curl", "the sandbox's network tests"],
  ["openssl", "openssl", "the test certificate of the HTTPS (preconnect) tests"],
];

/**
 * How to install `packages`, or null when this run may not: the command and the arguments before
 * apt-get's own. `exists` says whether an absolute path is an executable.
 */
export function installPlan({ packages, uid, env, exists }) {
  if (!packages.length || env.ORCA_PRETEST_INSTALL === "0" || !exists(APT_GET)) return null;
  if (uid === 0) return { command: APT_GET, prefix: [] };
  const ci = Boolean(env.CI) && env.CI !== "false";
  return ci && exists(SUDO) ? { command: SUDO, prefix: ["-n", APT_GET] } : null;
}

function main() {
  const pathDirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const onPath = (command) => pathDirs.some((dir) => executable(path.join(dir, command)));
  const missingNow = () => NEEDED.filter(([command]) => !onPath(command));

  let missing = missingNow();
  const plan = installPlan({ packages: missing.map(([, pkg]) => pkg), uid: process.getuid?.() ?? -1, env: process.env, exists: executable });
  if (plan) {
    const packages = missing.map(([, pkg]) => pkg);
    process.stderr.write(`pretest: installing ${packages.join(", ")} with apt-get…\n`);
    const run = (args) => spawnSync(plan.command, [...plan.prefix, ...args], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (run(["update", "-qq"]).status === 0) run(["install", "-y", "-qq", ...packages]);
    missing = missingNow();
  }
  if (missing.length) {
    const names = missing.map(([command]) => command).join(", ");
    const packages = missing.map(([, pkg]) => pkg).join(" ");
    process.stderr.write(`pretest: the tests need ${names}, not found on PATH: install them (Debian/Ubuntu: sudo apt-get install ${packages}) and run npm test again\n`);
    process.exit(1);
  }

  // Installed is not enough: bwrap needs unprivileged user namespaces (Ubuntu 24.04's AppArmor restricts them).
  const probe = spawnSync("bwrap", ["--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--", "true"], { stdio: "ignore" });
  if (probe.status !== 0) {
    process.stderr.write(
      "pretest: bubblewrap is installed but cannot create a sandbox here (user namespaces off?): on Ubuntu 24.04, sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, then run npm test again\n",
    );
    process.exit(1);
  }
}

function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// Run as a script; imported (by its test), only installPlan is wanted.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
