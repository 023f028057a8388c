import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConfinedForRead, readEntryConfined, removeConfined, removeLeftoverTemp, SymlinkRefused, walksByDescriptor, writeFileAtomic, writeSymlinkAtomic } from "../../src/tools/confined-fs.js";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { EventInput } from "../../src/events/types.js";
import type { AnyTool, ToolContext } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";
import { isTempName, tempName } from "../../src/util/atomic-write.js";

/**
 * The confined walk: a path checked by Workspace.resolve is reached one folder at a time with
 * O_NOFOLLOW, so a symlink swapped in after the check is refused, never followed out; writes are
 * a temporary file renamed over the target, keeping its mode.
 */

let tmp: string;
let root: string;
let outside: string;
let ws: Workspace;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-confined-")));
  root = path.join(tmp, "ws");
  outside = path.join(tmp, "outside");
  fs.mkdirSync(path.join(root, "sub"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "f.txt"), "outside\n");
  fs.writeFileSync(path.join(root, "sub", "f.txt"), "inside\n");
  ws = new Workspace(root);
});

afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const entries = (dir: string) => fs.readdirSync(dir).sort();
const read = async (abs: string) => {
  const handle = await openConfinedForRead(ws, abs);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
};

/** `sub` was a folder when the path was checked; now it is a link to the folder outside. */
function swapSubForLink(): string {
  const checked = ws.resolve("sub/f.txt");
  fs.renameSync(path.join(root, "sub"), path.join(root, "sub-moved"));
  fs.symlinkSync(outside, path.join(root, "sub"));
  return checked;
}

describe("the walk follows no symlink", () => {
  it("runs on /proc/self/fd here (Linux)", () => {
    expect(walksByDescriptor()).toBe(true);
  });

  it("a symlink swapped into a middle component after the check is refused for write, read and remove; the outside file is untouched", async () => {
    const checked = swapSubForLink();
    await expect(writeFileAtomic(ws, checked, "pwned\n")).rejects.toBeInstanceOf(SymlinkRefused);
    await expect(writeFileAtomic(ws, checked, "pwned\n")).rejects.toThrow("refused: sub is a symbolic link now");
    await expect(openConfinedForRead(ws, checked)).rejects.toBeInstanceOf(SymlinkRefused);
    await expect(removeConfined(ws, checked)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
    expect(entries(outside)).toEqual(["f.txt"]);
  });

  it("a symlink swapped in for the file itself is refused for read and write; the target is untouched", async () => {
    const checked = ws.resolve("sub/f.txt");
    fs.rmSync(checked);
    fs.symlinkSync(path.join(outside, "f.txt"), checked);
    await expect(writeFileAtomic(ws, checked, "pwned\n")).rejects.toThrow("refused: sub/f.txt is a symbolic link now");
    await expect(openConfinedForRead(ws, checked)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
    expect(fs.lstatSync(checked).isSymbolicLink()).toBe(true);
  });

  it("a missing folder that turns into a symlink before the write is refused, not created through", async () => {
    const checked = ws.resolve("new/deeper/f.txt");
    fs.symlinkSync(outside, path.join(root, "new"));
    await expect(writeFileAtomic(ws, checked, "pwned\n", { createParents: true })).rejects.toBeInstanceOf(SymlinkRefused);
    expect(entries(outside)).toEqual(["f.txt"]);
  });

  it("a symlink inside the workspace pointing inside it still works: resolve replaces it by its target", async () => {
    fs.symlinkSync(path.join(root, "sub"), path.join(root, "alias"));
    fs.symlinkSync(path.join(root, "sub", "f.txt"), path.join(root, "file-link"));
    expect(await read(ws.resolve("alias/f.txt"))).toBe("inside\n");
    await writeFileAtomic(ws, ws.resolve("alias/f.txt"), "through the alias\n");
    expect(fs.readFileSync(path.join(root, "sub", "f.txt"), "utf8")).toBe("through the alias\n");
    await writeFileAtomic(ws, ws.resolve("file-link"), "through the file link\n");
    expect(fs.readFileSync(path.join(root, "sub", "f.txt"), "utf8")).toBe("through the file link\n");
    expect(fs.lstatSync(path.join(root, "file-link")).isSymbolicLink()).toBe(true);
  });

  it("an additional folder is walked from its own root", async () => {
    const extra = path.join(tmp, "extra");
    fs.mkdirSync(extra);
    const wide = new Workspace(root, [extra]);
    await writeFileAtomic(wide, wide.resolve(path.join(extra, "a", "b.txt")), "extra\n", { createParents: true });
    expect(fs.readFileSync(path.join(extra, "a", "b.txt"), "utf8")).toBe("extra\n");
  });

  it("writeSymlinkAtomic and readEntryConfined refuse a folder swapped for a link; the outside is neither written nor read", async () => {
    const checked = swapSubForLink();
    await expect(writeSymlinkAtomic(ws, checked, "../x")).rejects.toBeInstanceOf(SymlinkRefused);
    await expect(readEntryConfined(ws, checked)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(entries(outside)).toEqual(["f.txt"]);
    expect(fs.lstatSync(path.join(outside, "f.txt")).isFile()).toBe(true);
  });

  it("writeSymlinkAtomic replaces a file by a link in its own folder; readEntryConfined tells link, file, exec and missing apart", async () => {
    const temps: string[] = [];
    await writeSymlinkAtomic(ws, path.join(root, "new", "l"), "../sub/f.txt", { createParents: true, onTemp: (t) => temps.push(t) });
    await writeSymlinkAtomic(ws, path.join(root, "sub", "f.txt"), "g.txt");
    expect(fs.readlinkSync(path.join(root, "new", "l"))).toBe("../sub/f.txt");
    expect(path.dirname(temps[0]!)).toBe(path.join(root, "new"));
    expect(entries(path.join(root, "new"))).toEqual(["l"]);
    fs.writeFileSync(path.join(root, "x.sh"), "run\n", { mode: 0o755 });
    expect(await readEntryConfined(ws, path.join(root, "sub", "f.txt"))).toEqual({ kind: "link", bytes: Buffer.from("g.txt") });
    expect(await readEntryConfined(ws, path.join(root, "x.sh"))).toEqual({ kind: "exec", bytes: Buffer.from("run\n") });
    expect((await readEntryConfined(ws, path.join(root, "nope", "y"))).kind).toBe("missing");
    // A leftover temporary link is removed as the link, never what it names.
    const temp = path.join(root, tempName());
    fs.symlinkSync(path.join(outside, "f.txt"), temp);
    expect(await removeLeftoverTemp(ws, temp)).toBe(true);
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
  });
});

describe("atomic replacement", () => {
  it("keeps an existing file's mode, gives a new file the asked mode under the umask, and leaves no temporary file", async () => {
    const file = path.join(root, "sub", "f.txt");
    fs.chmodSync(file, 0o751);
    const inode = fs.statSync(file).ino;
    expect(await writeFileAtomic(ws, file, "replaced\n")).toEqual({ created: false });
    expect(fs.readFileSync(file, "utf8")).toBe("replaced\n");
    expect(fs.statSync(file).mode & 0o7777).toBe(0o751);
    // A new inode: the old content was never truncated in place.
    expect(fs.statSync(file).ino).not.toBe(inode);

    const fresh = path.join(root, "made", "here", "new.txt");
    expect(await writeFileAtomic(ws, fresh, "new\n", { createParents: true, mode: 0o640 })).toEqual({ created: true });
    const umask = process.umask();
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o640 & ~umask);
    expect(fs.readdirSync(path.join(root, "sub")).filter(isTempName)).toEqual([]);
    expect(entries(path.join(root, "made", "here"))).toEqual(["new.txt"]);
  });

  it("names its temporary file to onTemp before creating it, in the target's folder", async () => {
    const file = path.join(root, "sub", "f.txt");
    let seen = "";
    await writeFileAtomic(ws, file, "x", {
      onTemp: (temp) => {
        seen = temp;
        expect(fs.existsSync(temp)).toBe(false);
      },
    });
    expect(path.dirname(seen)).toBe(path.join(root, "sub"));
    expect(isTempName(path.basename(seen))).toBe(true);
    expect(fs.existsSync(seen)).toBe(false);
  });

  it("refuses a folder and a FIFO, and creates nothing beside them", async () => {
    await expect(writeFileAtomic(ws, path.join(root, "sub"), "x")).rejects.toMatchObject({ code: "EISDIR" });
    const fifo = path.join(root, "pipe");
    // mkfifo through node is not offered: bash's mkfifo is.
    (await import("node:child_process")).execFileSync("mkfifo", [fifo]);
    await expect(writeFileAtomic(ws, fifo, "x")).rejects.toMatchObject({ code: "EINVAL" });
    const handle = await openConfinedForRead(ws, fifo);
    expect((await handle.stat()).isFIFO()).toBe(true);
    await handle.close();
    expect(entries(root).filter(isTempName)).toEqual([]);
  });

  it("removeLeftoverTemp removes only orca's exact temporary name, and never through a symlink", async () => {
    const temp = path.join(root, "sub", tempName());
    fs.writeFileSync(temp, "partial");
    const lookalike = path.join(root, "sub", ".orca-tmp-notours");
    fs.writeFileSync(lookalike, "keep");
    expect(await removeLeftoverTemp(ws, lookalike)).toBe(false);
    expect(await removeLeftoverTemp(ws, temp)).toBe(true);
    expect(fs.existsSync(temp)).toBe(false);
    expect(fs.existsSync(lookalike)).toBe(true);

    const outsideTemp = path.join(outside, tempName());
    fs.writeFileSync(outsideTemp, "not ours to remove");
    const checked = path.join(ws.resolve("sub"), path.basename(outsideTemp));
    swapSubForLink();
    expect(await removeLeftoverTemp(ws, checked)).toBe(false);
    expect(fs.existsSync(outsideTemp)).toBe(true);
  });
});

describe("the file tools go through the walk", () => {
  let tools: Map<string, AnyTool>;
  const events: EventInput[] = [];
  const ctx = (): ToolContext => ({ signal: new AbortController().signal, workspace: ws, agentId: "a1", callId: "c1", emit: (e) => void events.push(e) });
  const run = (name: string, args: unknown) => {
    const tool = tools.get(name)!;
    return tool.execute(tool.params.parse(args), ctx());
  };
  beforeEach(() => {
    events.length = 0;
    tools = new Map(builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, tokens: bpeTokenCounter(), readOnlyCommands: [] }).map((t) => [t.name, t]));
  });

  it("write_file, edit_file and read_file refuse a component swapped for a symlink after the check, with one clear line", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["write_file", { path: "sub/f.txt", content: "pwned\n" }],
      ["edit_file", { path: "sub/f.txt", old_string: "outside", new_string: "pwned" }],
      ["read_file", { path: "sub/f.txt" }],
    ];
    const realResolve = ws.resolve.bind(ws);
    for (const [name, args] of calls) {
      // The check (resolve) sees the folder inside; the swap lands between it and the use.
      ws.resolve = (p: string) => {
        ws.resolve = realResolve;
        const abs = realResolve(p);
        swapSubForLink();
        return abs;
      };
      const result = await run(name, args);
      expect(result.ok).toBe(false);
      expect(result.error).toBe(`${name}: sub/f.txt: refused: sub is a symbolic link now (it was not when the path was checked); nothing was opened through it`);
      fs.unlinkSync(path.join(root, "sub"));
      fs.renameSync(path.join(root, "sub-moved"), path.join(root, "sub"));
    }
    expect(fs.readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("outside\n");
    expect(entries(outside)).toEqual(["f.txt"]);
    expect(events.filter((e) => e.type === "file_write")).toEqual([]);
  });

  it("read_file refuses the file itself swapped for a symlink after the check, and a FIFO without waiting for a writer", async () => {
    const realResolve = ws.resolve.bind(ws);
    ws.resolve = (p: string) => {
      ws.resolve = realResolve;
      const abs = realResolve(p);
      fs.rmSync(abs);
      fs.symlinkSync(path.join(outside, "f.txt"), abs);
      return abs;
    };
    const swapped = await run("read_file", { path: "sub/f.txt" });
    expect(swapped.ok).toBe(false);
    expect(swapped.error).toBe("read_file: sub/f.txt: refused: sub/f.txt is a symbolic link now (it was not when the path was checked); nothing was opened through it");
    expect(swapped.content).not.toContain("outside");
    (await import("node:child_process")).execFileSync("mkfifo", [path.join(root, "pipe")]);
    expect((await run("read_file", { path: "pipe" })).error).toBe("read_file: pipe is not a regular file");
  });

  it("read_file reads a 1.5 MB file whole and numbers its lines", async () => {
    const line = "0123456789".repeat(9) + "\n";
    fs.writeFileSync(path.join(root, "big.txt"), line.repeat(15_000));
    const result = await run("read_file", { path: "big.txt", offset: 14_999 });
    expect(result.ok).toBe(true);
    expect(result.content).toBe(`${" 14999"}\t${line.trim()}\n${" 15000"}\t${line.trim()}`);
  });

  it("write_file and edit_file log file_write with the hashes before and after and the temporary file, and the listings hide temporary files", async () => {
    await run("read_file", { path: "sub/f.txt" });
    const w = await run("write_file", { path: "sub/f.txt", content: "second\n" });
    expect(w.ok, w.content).toBe(true);
    const e = await run("edit_file", { path: "sub/f.txt", old_string: "second", new_string: "third" });
    expect(e.ok, e.content).toBe(true);
    const writes = events.filter((x): x is Extract<EventInput, { type: "file_write" }> => x.type === "file_write");
    const { contentHash } = await import("../../src/util/content-hash.js");
    expect(writes.map((x) => [x.tool, x.path, x.before, x.after])).toEqual([
      ["write_file", "sub/f.txt", contentHash("inside\n"), contentHash("second\n")],
      ["edit_file", "sub/f.txt", contentHash("second\n"), contentHash("third\n")],
    ]);
    for (const x of writes) expect(x.temp).toMatch(/^sub\/\.orca-tmp-\d+-[0-9a-f]{16}$/);

    fs.writeFileSync(path.join(root, "sub", tempName()), "left by a crash");
    const list = await run("list_dir", { path: "sub" });
    expect(list.content).not.toContain(".orca-tmp-");
    expect(list.content).toContain("f.txt");
    const glob = await run("glob", { pattern: "**/*" });
    expect(glob.content).not.toContain(".orca-tmp-");
    const grep = await run("grep", { pattern: "crash" });
    expect(grep.content).toMatch(/^No matches/);
  });
});

describe("leftover temporary files at start", () => {
  it("one orca may not remove (in a 0555 folder, as another user) is left, the others removed, and the start goes on", () => {
    fs.mkdirSync(path.join(root, "ro"));
    fs.chmodSync(path.join(root, "sub"), 0o777);
    const stuck = path.join(root, "ro", tempName());
    const freed = path.join(root, "sub", tempName());
    fs.writeFileSync(stuck, "partial");
    fs.writeFileSync(freed, "partial");
    fs.chmodSync(path.join(root, "ro"), 0o555);
    const events = [{ type: "session_started", workspace: root }, { type: "file_write", temp: stuck }, { type: "file_write", temp: freed }];
    const module = path.resolve("src/orchestrator/leftover-temps.ts");
    const script = `import(${JSON.stringify(module)}).then(async ({ removeLeftoverTemps }) => process.stdout.write(String(await removeLeftoverTemps(${JSON.stringify(path.join(tmp, "data"))}, ${JSON.stringify(events)}))));`;
    // orca runs as root here, which no folder mode stops: a user namespace makes it uid 1000.
    const out = execFileSync("bwrap", ["--unshare-user", "--uid", "1000", "--gid", "1000", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", path.resolve("node_modules/.bin/tsx"), "--eval", script], { encoding: "utf8" });
    expect(out).toBe("1");
    expect(fs.existsSync(stuck)).toBe(true);
    expect(fs.existsSync(freed)).toBe(false);
  });
});
