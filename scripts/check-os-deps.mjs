#!/usr/bin/env node
// `npm test`'s pretest: the programs the suite needs from the OS. Present: silent and fast (a PATH
// scan and one bwrap probe). Missing: installed with apt-get where that can run without asking
// (root, or sudo -n); otherwise one line naming what to install and exit 1 — never a suite of
// failures that each say less.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** command → Debian/Ubuntu package, and why the tests need it. */
const NEEDED = [
  ["tmux", "tmux", "the end-to-end dashboard tests"],
  ["bwrap", "bubblewrap", "every sandbox test runs the real one"],
  ["socat", "socat", "the sandbox's network allow-list"],
  ["rg", "ripgrep", "the search tools"],
  ["jq", "jq", "the hook tests' scripts"],
  ["git", "git", "worktrees and orca's own git"],
  ["curl", "curl", "the sandbox's network tests"],
];

const PATH_DIRS = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);

function onPath(command) {
  return PATH_DIRS.some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const missingNow = () => NEEDED.filter(([command]) => !onPath(command));

let missing = missingNow();
if (missing.length) {
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = !asRoot && onPath("sudo") && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
  if (onPath("apt-get") && (asRoot || sudo)) {
    const packages = missing.map(([, pkg]) => pkg);
    process.stderr.write(`pretest: installing ${packages.join(", ")} with apt-get…\n`);
    const run = (args) => spawnSync(sudo ? "sudo" : "apt-get", sudo ? ["-n", "apt-get", ...args] : args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (run(["update", "-qq"]).status === 0) run(["install", "-y", "-qq", ...packages]);
    missing = missingNow();
  }
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
