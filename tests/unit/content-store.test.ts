import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ContentStore, contentDir, removeOrphanContent } from "../../src/sessions/content-store.js";
import { contentHash } from "../../src/util/content-hash.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const filesIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : []);

describe("the content store", () => {
  it("keeps each version once, by its hash, and never hands out a damaged one", () => {
    ws = tempWorkspace();
    const store = ContentStore.forSession(ws.dataDir, "s1");
    expect(store.keep("hello\n")).toBe(true);
    expect(store.keep(Buffer.from("hello\n"))).toBe(true);
    expect(filesIn(store.dir)).toHaveLength(1);
    const hash = contentHash("hello\n");
    expect(store.read(hash)?.toString()).toBe("hello\n");
    // A fresh store on the same folder (a resumed session) finds it too.
    expect(ContentStore.forSession(ws.dataDir, "s1").read(hash)?.toString()).toBe("hello\n");
    fs.writeFileSync(path.join(store.dir, hash.slice(0, 2), hash), "tampered\n");
    expect(store.read(hash)).toBeNull();
    expect(store.read("../../../etc/passwd")).toBeNull();
  });

  it("is capped: a version over the file limit, or past the session's total, is not kept", () => {
    ws = tempWorkspace();
    const store = new ContentStore(path.join(ws.dataDir, "c"), { maxFileBytes: 10, maxTotalBytes: 15 });
    expect(store.keep("x".repeat(11))).toBe(false);
    expect(store.keep("y".repeat(10))).toBe(true);
    expect(store.keep("z".repeat(6))).toBe(false);
    expect(store.keep("w".repeat(5))).toBe(true);
    expect(filesIn(store.dir)).toHaveLength(2);
  });

  it("goes with its session: orca sessions --reap removes the stores whose log is gone", () => {
    ws = tempWorkspace();
    for (const id of ["kept", "gone"]) ContentStore.forSession(ws.dataDir, id).keep(`${id}\n`);
    fs.writeFileSync(path.join(ws.dataDir, "sessions", "kept.jsonl"), "");
    expect(removeOrphanContent(ws.dataDir)).toEqual(["gone"]);
    expect(fs.existsSync(contentDir(ws.dataDir, "gone"))).toBe(false);
    expect(fs.existsSync(contentDir(ws.dataDir, "kept"))).toBe(true);
  });
});
