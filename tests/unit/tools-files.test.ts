import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { AnyTool, ToolContext, ToolResult } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";

let tmp: string;
let ws: Workspace;
let outside: string;
let tools: Map<string, AnyTool>;

function ctx(signal = new AbortController().signal): ToolContext {
  return { signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {} };
}

async function run(name: string, args: unknown, maxOutputTokens?: number): Promise<ToolResult> {
  const tool = maxOutputTokens
    ? builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens, tokens: bpeTokenCounter(), readOnlyCommands: [] }).find(
        (t) => t.name === name,
      )!
    : tools.get(name)!;
  return tool.execute(tool.params.parse(args), ctx());
}

function write(rel: string, content: string | Buffer): string {
  const abs = path.join(tmp, "ws", rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  return abs;
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-files-")));
  fs.mkdirSync(path.join(tmp, "ws"));
  outside = path.join(tmp, "outside");
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "top secret\n");
  ws = new Workspace(path.join(tmp, "ws"));
  const list = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, tokens: bpeTokenCounter(), readOnlyCommands: [] });
  tools = new Map(list.map((t) => [t.name, t]));
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("builtinTools", () => {
  it("offers the nine built-in tools, each with described parameters", async () => {
    const { z } = await import("zod");
    expect([...tools.keys()]).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "list_dir",
      "glob",
      "grep",
      "bash",
      "bash_output",
      "bash_kill",
    ]);
    for (const tool of tools.values()) {
      expect(tool.description.length).toBeGreaterThan(20);
      const schema = z.toJSONSchema(tool.params) as { properties: Record<string, { description?: string }> };
      for (const [name, prop] of Object.entries(schema.properties)) {
        expect(prop.description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });
});

describe("read_file", () => {
  it("numbers lines like cat -n", async () => {
    write("a.txt", "alpha\nbeta\r\ngamma\n");
    const r = await run("read_file", { path: "a.txt" });
    expect(r.ok).toBe(true);
    expect(r.content).toBe("     1\talpha\n     2\tbeta\n     3\tgamma");
  });

  it("reads a window with offset and limit and says what follows", async () => {
    write("n.txt", Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n"));
    const r = await run("read_file", { path: "n.txt", offset: 4, limit: 2 });
    expect(r.content).toBe("     4\tl4\n     5\tl5\n[5 more lines after line 5; continue with offset=6]");
  });

  it("refuses an offset past the end", async () => {
    write("n.txt", "one\ntwo\n");
    const r = await run("read_file", { path: "n.txt", offset: 5 });
    expect(r.ok).toBe(false);
    expect(r.error).toBe("read_file: offset 5 is past the end of n.txt (2 lines)");
  });

  it("refuses directories and binary files with a clear message", async () => {
    fs.mkdirSync(path.join(tmp, "ws", "dir"));
    write("bin.dat", Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const dir = await run("read_file", { path: "dir" });
    expect(dir.ok).toBe(false);
    expect(dir.error).toMatch(/dir is a directory; use list_dir/);
    const bin = await run("read_file", { path: "bin.dat" });
    expect(bin.ok).toBe(false);
    expect(bin.error).toMatch(/bin\.dat is a binary file/);
  });

  it("reads a file above the synchronous read's size on the thread pool, whole, and leaves no descriptor open", async () => {
    const lines = Array.from({ length: 12_000 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`);
    write("large.txt", lines.join("\n"));
    expect(fs.statSync(path.join(tmp, "ws", "large.txt")).size).toBeGreaterThan(256 * 1024);
    const open = () => fs.readdirSync("/proc/self/fd").length;
    const before = open();
    const r = await run("read_file", { path: "large.txt", offset: 11_999 });
    expect(r.content).toBe(` 11999\t${lines[11_998]}\n 12000\t${lines[11_999]}`);
    await run("read_file", { path: "a-missing-one.txt" });
    expect(open()).toBe(before);
  });

  it("refuses a FIFO at once, without waiting for a writer", async () => {
    const fifo = path.join(tmp, "ws", "pipe");
    execFileSync("mkfifo", [fifo]);
    const r = await run("read_file", { path: "pipe" });
    expect(r).toMatchObject({ ok: false, error: "read_file: pipe is not a regular file" });
  });

  it("reports a missing file", async () => {
    const r = await run("read_file", { path: "nope.txt" });
    expect(r).toMatchObject({ ok: false, error: "read_file: nope.txt does not exist" });
  });

  it("truncates a long file head and tail and says how to read the rest", async () => {
    write("big.txt", Array.from({ length: 2000 }, (_, i) => `this is line number ${i + 1}`).join("\n"));
    const r = await run("read_file", { path: "big.txt" }, 300);
    expect(r.ok).toBe(true);
    expect(r.content.startsWith("     1\tthis is line number 1\n")).toBe(true);
    expect(r.content.endsWith("  2000\tthis is line number 2000")).toBe(true);
    const m = /lines (\d+)-(\d+) omitted \((\d+) lines\); read them with offset=(\d+) limit=(\d+)/.exec(r.content);
    expect(m).not.toBeNull();
    const [first, last, count, offset, limit] = m!.slice(1).map(Number);
    expect(count).toBe(last - first + 1);
    expect(offset).toBe(first);
    expect(limit).toBe(count);
    // The line before the gap is shown, the first omitted one is not.
    expect(r.content).toContain(`\tthis is line number ${first - 1}\n`);
    expect(r.content).not.toContain(`\tthis is line number ${first}\n`);
    expect(r.content).toContain(`\tthis is line number ${last + 1}\n`);
  });
});

describe("write_file", () => {
  it("creates parent folders and reports created, then overwritten", async () => {
    const first = await run("write_file", { path: "deep/er/new.ts", content: "export {};\n" });
    const abs = path.join(tmp, "ws", "deep/er/new.ts");
    expect(first).toMatchObject({ ok: true, content: "Created deep/er/new.ts (11 bytes)" });
    expect(first.meta?.filesChanged).toEqual([abs]);
    expect(fs.readFileSync(abs, "utf8")).toBe("export {};\n");
    expect(first.meta?.diff).toBe("--- /dev/null\n+++ b/deep/er/new.ts\n@@ -0,0 +1,1 @@\n+export {};\n");
    const second = await run("write_file", { path: "deep/er/new.ts", content: "é" });
    expect(second.content).toBe("Overwrote deep/er/new.ts (2 bytes, was 11 bytes)");
    expect(second.meta?.diff).toBe("--- a/deep/er/new.ts\n+++ b/deep/er/new.ts\n@@ -1,1 +1,1 @@\n-export {};\n+é\n");
    expect(fs.readFileSync(abs, "utf8")).toBe("é");
  });

  it("refuses to overwrite a directory", async () => {
    fs.mkdirSync(path.join(tmp, "ws", "d"));
    const r = await run("write_file", { path: "d", content: "x" });
    expect(r).toMatchObject({ ok: false, error: "write_file: d is a directory" });
  });
});

describe("edit_file", () => {
  it("replaces a unique match and reports the line", async () => {
    const abs = write("src/a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const r = await run("edit_file", { path: "src/a.ts", old_string: "const b = 2;", new_string: "const b = 20;" });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/^Edited src\/a\.ts: replaced 1 occurrence at line 2\n/);
    expect(r.content).toContain("     2\tconst b = 20;");
    expect(r.meta?.filesChanged).toEqual([abs]);
    expect(fs.readFileSync(abs, "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    // The applied change, for the dashboard (the model gets `content`).
    expect(r.meta?.diff).toBe("--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n");
  });

  it("refuses a non-unique old_string and leaves the file untouched", async () => {
    const original = "x = 1\ny = 2\nx = 1\nx = 1\n";
    const abs = write("src/a.ts", original);
    const r = await run("edit_file", { path: "src/a.ts", old_string: "x = 1", new_string: "x = 9" });
    expect(r.ok).toBe(false);
    expect(r.content).toBe(
      "Error: edit_file: old_string matches 3 places in src/a.ts (lines 1, 3, 4); include more context or set replace_all",
    );
    expect(fs.readFileSync(abs, "utf8")).toBe(original);
  });

  it("replaces every match with replace_all, taking replacement text literally", async () => {
    const abs = write("a.txt", "x = 1\ny = 2\nx = 1\n");
    const r = await run("edit_file", { path: "a.txt", old_string: "x = 1", new_string: "x = $&$1", replace_all: true });
    expect(r.content).toBe("Edited a.txt: replaced 2 occurrences at lines 1, 3");
    expect(fs.readFileSync(abs, "utf8")).toBe("x = $&$1\ny = 2\nx = $&$1\n");
  });

  it("refuses a missing match with a hint, and identical strings", async () => {
    const abs = write("a.txt", "hello\n");
    const missing = await run("edit_file", { path: "a.txt", old_string: "bye", new_string: "ciao" });
    expect(missing.ok).toBe(false);
    expect(missing.error).toMatch(/old_string not found in a\.txt; read the file again/);
    const same = await run("edit_file", { path: "a.txt", old_string: "hello", new_string: "hello" });
    expect(same.ok).toBe(false);
    expect(same.error).toMatch(/identical/);
    expect(fs.readFileSync(abs, "utf8")).toBe("hello\n");
  });

  it("matches text copied from read_file in a CRLF file and keeps CRLF", async () => {
    const abs = write("w.txt", "one\r\ntwo\r\nthree\r\n");
    const r = await run("edit_file", { path: "w.txt", old_string: "one\ntwo", new_string: "uno\ndos" });
    expect(r.ok).toBe(true);
    expect(fs.readFileSync(abs, "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });
});

describe("list_dir", () => {
  it("lists sorted entries, folders with a slash, files with sizes", async () => {
    write("b.txt", "12345");
    write("a/inner.txt", "x");
    write(".hidden", "");
    const r = await run("list_dir", {});
    expect(r.ok).toBe(true);
    expect(r.content).toBe("./ (3 entries)\n.hidden  (0 B)\na/\nb.txt  (5 B)");
    const sub = await run("list_dir", { path: "a" });
    expect(sub.content).toBe("a/ (1 entry)\ninner.txt  (1 B)");
  });

  it("caps a huge folder and says how many were left out", async () => {
    for (let i = 0; i < 520; i++) write(`many/f${String(i).padStart(3, "0")}`, "");
    const r = await run("list_dir", { path: "many" });
    expect(r.content.split("\n")).toHaveLength(1 + 500 + 1);
    expect(r.content).toMatch(/20 more entries not shown/);
  });
});

describe("workspace confinement", () => {
  beforeEach(() => {
    fs.symlinkSync(outside, path.join(tmp, "ws", "escape"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(tmp, "ws", "secret-link"));
    fs.symlinkSync(path.join(outside, "created-by-link.txt"), path.join(tmp, "ws", "dangling"));
  });

  const paths = ["../outside/secret.txt", "/etc/passwd", "escape/secret.txt", "secret-link"];

  it.each(paths)("read tools refuse %s", async (p) => {
    for (const [name, args] of [
      ["read_file", { path: p }],
      ["list_dir", { path: p }],
      ["glob", { pattern: "**/*", path: p }],
      ["grep", { pattern: "secret", path: p }],
    ] as const) {
      const r = await run(name, args);
      expect(r.ok, `${name} ${p}`).toBe(false);
      expect(r.error).toMatch(new RegExp(`^${name}: path .* is outside the workspace`));
      expect(r.content).not.toContain("top secret");
    }
  });

  it.each([...paths, "escape/new.txt", "dangling"])("write tools refuse %s and write nothing", async (p) => {
    const before = fs.readdirSync(outside).sort();
    const w = await run("write_file", { path: p, content: "pwned" });
    expect(w.ok).toBe(false);
    expect(w.error).toMatch(/^write_file: path .* is outside the workspace/);
    const e = await run("edit_file", { path: p, old_string: "top secret", new_string: "pwned" });
    expect(e.ok).toBe(false);
    expect(e.error).toMatch(/^edit_file: path .* is outside the workspace/);
    expect(fs.readdirSync(outside).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("grep skips files that link outside the workspace", async () => {
    write("own.txt", "a secret of our own\n");
    const r = await run("grep", { pattern: "secret" });
    expect(r.ok).toBe(true);
    expect(r.content).toContain("own.txt:1:a secret of our own");
    expect(r.content).not.toContain("top secret");
  });

  it("access() names resolved paths, and nothing for a refused one", () => {
    const read = tools.get("read_file")!;
    const writeTool = tools.get("write_file")!;
    expect(read.access({ path: "x/y.txt" }, ws)).toEqual({ reads: [path.join(ws.root, "x/y.txt")], writes: [] });
    expect(writeTool.access({ path: "x/y.txt", content: "" }, ws)).toEqual({ reads: [], writes: [path.join(ws.root, "x/y.txt")] });
    expect(writeTool.access({ path: "dangling", content: "" }, ws)).toEqual({ reads: [], writes: [] });
    expect(tools.get("glob")!.access({ pattern: "*" }, ws)).toEqual({ reads: [ws.root], writes: [] });
    expect(tools.get("grep")!.access({ pattern: "x", path: "src" }, ws)).toEqual({ reads: [path.join(ws.root, "src")], writes: [] });
    expect(tools.get("edit_file")!.permissionSubject({ path: "./src/../a.ts", old_string: "a", new_string: "b" }, ws)).toEqual({
      kind: "path",
      value: "a.ts",
    });
    expect(read.readOnly({ path: "a" })).toBe(true);
    expect(writeTool.readOnly({ path: "a", content: "" })).toBe(false);
  });
});
