import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childEnv } from "../../src/tools/child-env.js";
import { bwrapArgs, type BwrapPlan } from "../../src/tools/sandbox/bwrap-args.js";
import { readDenyPatterns, resolveUnreadable } from "../../src/tools/sandbox/deny-read.js";
import { networkPolicy } from "../../src/tools/sandbox/index.js";
import { joinProtection, Placeholders, protectedPaths, readManifest } from "../../src/tools/sandbox/protected.js";
import { hostMatcher } from "../../src/tools/sandbox/proxy.js";
import { configSchema } from "../../src/config/schema.js";
import { unixSocketFilter } from "../../src/tools/sandbox/seccomp.js";
import { isInside } from "../../src/tools/workspace.js";

/** The sandbox's decisions, without running it (the integration tests run it). */

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-plan-")));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const inRoot = (p: string) => isInside(root, p);
const rel = (list: string[]) => list.map((p) => path.relative(root, p)).sort();

function plan(extra: Partial<BwrapPlan> = {}): BwrapPlan {
  return {
    mode: "workspace-write",
    workspace: "/w",
    writable: ["/extra"],
    tempDirs: ["/tmp"],
    privateTmp: "/s/tmp",
    visible: ["/tmp/skills"],
    hideRun: true,
    pins: ["/w/.git"],
    readOnly: ["/w/.git/config"],
    unreadable: { files: ["/w/.env"], dirs: ["/home/u/.ssh"] },
    blank: { file: "/s/blank", dir: "/s/blank-dir" },
    sessionDir: "/s",
    shareNetwork: false,
    seccomp: true,
    disableUserns: true,
    ...extra,
  };
}

/** Position of `flag a b` in args, for order checks. */
function at(args: string[], ...triple: string[]): number {
  const i = args.findIndex((_, k) => triple.every((t, j) => args[k + j] === t));
  expect(i, triple.join(" ")).toBeGreaterThanOrEqual(0);
  return i;
}

describe("bwrap arguments", () => {
  it("bind the writable areas, then pin and protect inside them, then hide: later mounts win", () => {
    const args = bwrapArgs(plan());
    expect(args.slice(0, 12)).toEqual(["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--seccomp", "3", "--info-fd", "4"]);
    expect(args).not.toContain("--new-session");
    const root = at(args, "--ro-bind", "/", "/");
    const run = at(args, "--tmpfs", "/run");
    const tmp = at(args, "--bind", "/s/tmp", "/tmp");
    const skills = at(args, "--ro-bind", "/tmp/skills", "/tmp/skills");
    const ws = at(args, "--bind", "/w", "/w");
    const pin = at(args, "--bind", "/w/.git", "/w/.git");
    const config = at(args, "--ro-bind", "/w/.git/config", "/w/.git/config");
    const session = at(args, "--ro-bind", "/s", "/s");
    const env = at(args, "--ro-bind", "/s/blank", "/w/.env");
    const ssh = at(args, "--ro-bind", "/s/blank-dir", "/home/u/.ssh");
    expect([root, run, tmp, skills, ws, pin, config, session, env, ssh]).toEqual([...[root, run, tmp, skills, ws, pin, config, session, env, ssh]].sort((a, b) => a - b));
    expect(args.slice(-3)).toEqual(["--chdir", "/w", "--"]);
  });

  it("read-only mode binds nothing writable and gives a private temp dir", () => {
    const args = bwrapArgs(plan({ mode: "read-only" }));
    expect(args.filter((a) => a === "--bind")).toEqual([]);
    expect(at(args, "--tmpfs", "/tmp")).toBeLessThan(at(args, "--ro-bind", "/w", "/w"));
    // Skills under /tmp stay in sight over the empty temp dir.
    expect(at(args, "--tmpfs", "/tmp")).toBeLessThan(at(args, "--ro-bind", "/tmp/skills", "/tmp/skills"));
  });

  it("keeps the host network, /run and /tmp only for allow: ['*']", () => {
    const full = bwrapArgs(plan({ shareNetwork: true, seccomp: false, privateTmp: null, hideRun: false }));
    expect(full).not.toContain("--unshare-net");
    expect(full).not.toContain("--tmpfs");
    at(full, "--bind", "/tmp", "/tmp");
    expect(networkPolicy([])).toEqual({ kind: "off" });
    expect(networkPolicy(["*"])).toEqual({ kind: "full" });
    expect(networkPolicy(["registry.npmjs.org", " "])).toEqual({ kind: "allow-list", hosts: ["registry.npmjs.org"] });
  });
});

describe("protected paths", () => {
  it("in a folder with nothing yet: a stand-in for .git and each settings folder", () => {
    const p = protectedPaths(root, inRoot);
    expect(rel(p.placeholders.map((x) => x.path))).toEqual([".agents", ".claude", ".git", ".idea", ".mcp.json", ".orca", ".vscode"]);
    expect(p.placeholders.every((x) => x.kind === "dir")).toBe(true);
    expect(rel(p.readOnly)).toEqual(rel(p.placeholders.map((x) => x.path)));
    // Once an empty .git stand-in is there, it is still no repository to fill with more.
    fs.mkdirSync(path.join(root, ".git"));
    const again = protectedPaths(root, inRoot);
    expect(rel(again.readOnly)).toContain(".git");
    expect(again.pins).toEqual([]);
    expect(again.readOnly.filter((p) => p.startsWith(path.join(root, ".git") + path.sep))).toEqual([]);
  });

  it("in a repository: pins .git, protects config and hooks, and fills a missing commondir and hooks", () => {
    execFileSync("git", ["init", "-q", "."], { cwd: root });
    fs.rmSync(path.join(root, ".git", "hooks"), { recursive: true });
    fs.mkdirSync(path.join(root, ".orca"));
    const p = protectedPaths(root, inRoot, ["Makefile", "missing-file"]);
    fs.writeFileSync(path.join(root, "Makefile"), "");
    expect(rel(p.pins)).toEqual([".git"]);
    expect(rel(p.readOnly)).toEqual(expect.arrayContaining([".git/config", ".git/hooks", ".git/commondir", ".orca"]));
    expect(p.placeholders).toContainEqual({ path: path.join(root, ".git", "commondir"), kind: "file", content: ".\n" });
    expect(p.placeholders).toContainEqual({ path: path.join(root, ".git", "hooks"), kind: "dir" });
    // A configured extra is protected only while it exists.
    expect(rel(p.readOnly)).not.toContain("missing-file");
  });

  it("a configured extra deep in the root: every folder above it up to the root is pinned, outermost first, so none can be renamed away with it", () => {
    const cache = path.join(root, ".cache", "orca", "compile-cache");
    fs.mkdirSync(cache, { recursive: true });
    execFileSync("git", ["init", "-q", path.join(root, ".cache", "orca", "repo")]);
    const p = protectedPaths(root, inRoot, [cache]);
    expect(rel(p.readOnly)).toContain(".cache/orca/compile-cache");
    expect(p.pins.map((x) => path.relative(root, x))).toEqual([".cache", ".cache/orca"]);
    // Joined with a deeper pin listed first (a nested repository's .git): parents are bound before what is in them.
    const joined = joinProtection([{ pins: [path.join(root, ".cache", "orca", "repo", ".git")], readOnly: [], placeholders: [] }, p]);
    expect(joined.pins.map((x) => path.relative(root, x))).toEqual([".cache", ".cache/orca", ".cache/orca/repo/.git"]);
    // Missing (nothing to mount read-only): nothing pinned for it. Outside the writable area: nothing either.
    expect(protectedPaths(root, inRoot, [path.join(root, "gone", "deeper")]).pins).toEqual([]);
    expect(protectedPaths(root, (x) => inRoot(x) && !x.startsWith(path.join(root, ".cache")), [cache]).pins).toEqual([]);
    // A home in a writable area beside the workspace (the host's /tmp, shared where the network is):
    // its folders up to that area's root, which is a mount point already.
    const tmp = path.join(root, "tmp");
    const home = path.join(tmp, "home");
    fs.mkdirSync(path.join(home, ".cache", "orca", "compile-cache"), { recursive: true });
    const beside = protectedPaths(path.join(root, "ws"), (x) => isInside(path.join(root, "ws"), x) || isInside(tmp, x), [path.join(home, ".cache", "orca", "compile-cache")]);
    expect(beside.pins.map((x) => path.relative(root, x))).toEqual(["tmp/home", "tmp/home/.cache", "tmp/home/.cache/orca"]);
  });

  it("in a linked worktree: the .git file, and the main repository's config and hooks where writable", () => {
    const main = path.join(root, "main");
    const wt = path.join(root, "wt");
    fs.mkdirSync(main);
    execFileSync("git", ["init", "-q", "."], { cwd: main });
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"], { cwd: main });
    execFileSync("git", ["worktree", "add", "-q", wt], { cwd: main });
    const p = protectedPaths(wt, inRoot);
    expect(rel(p.readOnly)).toEqual(expect.arrayContaining(["wt/.git", "main/.git/worktrees/wt/commondir", "main/.git/config", "main/.git/hooks"]));
    // Outside every writable area the main repository is read-only already: nothing to add.
    const narrow = protectedPaths(wt, (x) => isInside(wt, x));
    expect(rel(narrow.readOnly).filter((x) => x.startsWith("main"))).toEqual([]);
  });

  it("stand-ins are made once, again if removed, and go at the end unless someone filled them", () => {
    const holder = new Placeholders();
    const orca = path.join(root, ".orca");
    const commondir = path.join(root, "commondir");
    const list = [
      { path: orca, kind: "dir" as const },
      { path: commondir, kind: "file" as const, content: ".\n" },
    ];
    holder.ensure(list);
    expect(fs.readFileSync(commondir, "utf8")).toBe(".\n");
    fs.rmSync(commondir);
    holder.ensure(list);
    expect(fs.existsSync(commondir)).toBe(true);
    fs.writeFileSync(path.join(orca, "mine.md"), "the user's\n");
    holder.removeAll();
    expect(fs.existsSync(commondir)).toBe(false);
    expect(fs.readFileSync(path.join(orca, "mine.md"), "utf8")).toBe("the user's\n");
    expect(() => holder.ensure([{ path: path.join(root, "no", "such", "dir"), kind: "dir" }])).toThrow(/cannot protect .*ENOENT/);
  });

  it("a stand-in stays while another session uses it; the last one out removes it", () => {
    const manifests = { a: path.join(root, "a.json"), b: path.join(root, "b.json") };
    const listed = (file: string) => new Set(readManifest(file).map((p) => p.path));
    const a = new Placeholders(manifests.a, () => listed(manifests.b));
    const b = new Placeholders(manifests.b, () => listed(manifests.a));
    const orca = { path: path.join(root, ".orca"), kind: "dir" as const };
    const userDir = { path: path.join(root, ".vscode"), kind: "dir" as const };
    fs.mkdirSync(userDir.path);
    a.ensure([orca]);
    b.ensure([orca, userDir]);
    // b took a's stand-in on, but not an empty folder no session made.
    expect(readManifest(manifests.b).map((p) => p.path)).toEqual([orca.path]);
    a.removeAll();
    expect(fs.existsSync(orca.path)).toBe(true);
    // a lists nothing once it has let go: b's end is not held back on a's account.
    expect(readManifest(manifests.a)).toEqual([]);
    b.removeAll();
    expect(fs.existsSync(orca.path)).toBe(false);
    expect(fs.existsSync(userDir.path)).toBe(true);
  });
});

describe("unreadable paths", () => {
  it("takes the patterns of read_file deny rules only", () => {
    expect(readDenyPatterns(["read_file(.env*)", "bash(rm *)", " read_file(./secrets/**) ", "write_file(x)", "read_file()"])).toEqual([".env*", "secrets/**"]);
  });

  it("resolves patterns in the workspace, dot-files and folders included, never the workspace itself", async () => {
    for (const f of [".env", ".env.local", "src/.env", "secrets/a.pem", "keep.txt"]) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), "x");
    }
    const found = await resolveUnreadable(root, [".env*", "**/.env", "secrets", "secrets/**"], [path.join(root, ".."), root, path.join(root, "gone")]);
    expect(rel(found.files)).toEqual([".env", ".env.local", "src/.env"]);
    // secrets/a.pem is inside a hidden folder already.
    expect(rel(found.dirs)).toEqual(["secrets"]);
    // Installed packages are walked only when a pattern names them, as the search tools do.
    fs.mkdirSync(path.join(root, "node_modules", "pkg"), { recursive: true });
    fs.writeFileSync(path.join(root, "node_modules", "pkg", ".env"), "x");
    expect(rel((await resolveUnreadable(root, ["**/.env"], [])).files)).toEqual([".env", "src/.env"]);
    expect(rel((await resolveUnreadable(root, ["node_modules/**/.env"], [])).files)).toEqual(["node_modules/pkg/.env"]);
  });
});

describe("network allow-list", () => {
  it("matches hosts exactly, and *.domain its subdomains only", () => {
    const allowed = hostMatcher(["registry.npmjs.org", "*.github.com"]);
    expect(allowed("registry.npmjs.org", 443)).toBe(true);
    expect(allowed("REGISTRY.npmjs.org.", 443)).toBe(true);
    expect(allowed("api.github.com", 443)).toBe(true);
    expect(allowed("github.com", 443)).toBe(false);
    expect(allowed("evilgithub.com", 443)).toBe(false);
    expect(allowed("registry.npmjs.org.evil.com", 443)).toBe(false);
  });

  it("an entry without a port opens 443 and 80 only; host:port opens that port only (issue 33: every port was open)", () => {
    const allowed = hostMatcher(["registry.npmjs.org", "*.github.com", "localhost:8080", "[::1]:9000", "ci.example.com:8443"]);
    for (const port of [443, 80]) expect(allowed("registry.npmjs.org", port)).toBe(true);
    for (const port of [22, 25, 6379, 8080, 8443]) expect(allowed("registry.npmjs.org", port), String(port)).toBe(false);
    expect(allowed("api.github.com", 80)).toBe(true);
    expect(allowed("api.github.com", 22)).toBe(false);
    expect(allowed("localhost", 8080)).toBe(true);
    expect(allowed("localhost", 443)).toBe(false);
    expect(allowed("::1", 9000)).toBe(true);
    expect(allowed("::1", 443)).toBe(false);
    expect(allowed("ci.example.com", 8443)).toBe(true);
    expect(allowed("ci.example.com", 443)).toBe(false);
  });

  it("the config refuses an entry that is no host, or a port out of range, with one line", () => {
    const parse = (allow: string[]) => configSchema.safeParse({ sandbox: { network: { allow } } });
    expect(parse(["*", "example.com", "*.example.com", "example.com:8443", "[::1]:8080", "10.0.0.1"]).success).toBe(true);
    for (const bad of ["example.com:0", "example.com:70000", "http://example.com", "example.com:", "::1", "a b"]) expect(parse([bad]).success, bad).toBe(false);
  });
});

describe("seccomp filter and child environment", () => {
  it("has a well-formed filter for x64 and arm64, and none where orca lacks the numbers", () => {
    for (const arch of ["x64", "arm64"] as const) {
      const filter = unixSocketFilter(arch)!;
      const count = filter.length / 8;
      for (let i = 0; i < count; i++) {
        const code = filter.readUInt16LE(i * 8);
        // Every jump lands inside the program; the program ends by allowing.
        if ((code & 0x07) === 0x05) expect(i + 1 + Math.max(filter[i * 8 + 2]!, filter[i * 8 + 3]!)).toBeLessThan(count);
      }
      expect(filter.readUInt16LE((count - 1) * 8)).toBe(0x06);
      expect(filter.readUInt32LE((count - 1) * 8 + 4)).toBe(0x7fff0000);
    }
    expect(unixSocketFilter("ia32")).toBeNull();
  });

  it("drops the model key under any name unless it is to be passed", () => {
    const base = { PATH: "/bin", OPENAI_API_KEY: "k1", ANTHROPIC_API_KEY: "k2", DEEPSEEK: "k3", OTHER: "v" };
    expect(childEnv(base, { modelKey: "k3" })).toEqual({ PATH: "/bin", OTHER: "v", PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" });
    expect(childEnv(base, { modelKey: "k3", passModelKey: true })).toMatchObject({ OPENAI_API_KEY: "k1", ANTHROPIC_API_KEY: "k2", DEEPSEEK: "k3" });
  });
});
