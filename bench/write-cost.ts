/**
 * What one write_file and one edit_file cost end to end — the tool's whole execute (resolve, version
 * check, read, write, record) on a 4 KB file the agent has read — on the real disk, where a durable
 * write pays for its fsyncs, and in memory (tmpfs), where syncs are free. Then the syncs alone on
 * the disk: fsync of a freshly written 4 KB file and of its folder, which is what a crash-safe write
 * adds to a plain one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { editFileTool } from "../src/tools/builtin/edit-file.js";
import { readFileTool } from "../src/tools/builtin/read-file.js";
import { writeFileTool } from "../src/tools/builtin/write-file.js";
import type { ToolContext } from "../src/tools/tool.js";
import { FileVersions } from "../src/tools/versions.js";
import { Workspace } from "../src/tools/workspace.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import { spread, type Spread } from "./stats.js";

export interface WriteCost {
  disk: { write: Spread; edit: Spread };
  memory: { write: Spread; edit: Spread };
  /** µs to fsync a freshly written 4 KB file, and its folder, on the disk. */
  fsync: { file: Spread; dir: Spread };
}

const FILES = 40;
const ROUNDS = 5;
const FILE_BYTES = 4 * 1024;

export async function measureWriteCost(): Promise<WriteCost> {
  const disk = await toolCosts(os.tmpdir());
  const memory = fs.existsSync("/dev/shm") ? await toolCosts("/dev/shm") : disk;
  return { disk, memory, fsync: syncCosts(os.tmpdir()) };
}

async function toolCosts(parent: string): Promise<{ write: Spread; edit: Spread }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, "orca-bench-writes-")));
  try {
    const workspace = new Workspace(base);
    const versions = new FileVersions(workspace);
    const signal = new AbortController().signal;
    let n = 0;
    const ctx = (tool: string): ToolContext => {
      const callId = `c${n++}`;
      return { signal, workspace, agentId: "bench", callId, emit: () => undefined, versions: versions.forCall({ agentId: "bench", callId, tool, emit: () => undefined }) };
    };
    const read = readFileTool({ maxOutputTokens: 100_000, tokens: bpeTokenCounter() });
    const write = writeFileTool();
    const edit = editFileTool();
    const body = (mark: number) => `MARK${mark}\n${"x".repeat(FILE_BYTES - 12)}\n`;
    const files = Array.from({ length: FILES }, (_, i) => `src/f${i}.ts`);
    fs.mkdirSync(path.join(base, "src"));
    for (const f of files) fs.writeFileSync(path.join(base, f), body(0));
    for (const f of files) await read.execute({ path: f }, ctx("read_file"));
    const writes: number[] = [];
    const edits: number[] = [];
    let mark = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const f of files) {
        const t0 = performance.now();
        const w = await write.execute({ path: f, content: body(++mark) }, ctx("write_file"));
        const t1 = performance.now();
        const e = await edit.execute({ path: f, old_string: `MARK${mark}\n`, new_string: `MARK${++mark}\n` }, ctx("edit_file"));
        const t2 = performance.now();
        if (!w.ok || !e.ok) throw new Error(`bench write failed: ${w.ok ? e.content : w.content}`);
        writes.push((t1 - t0) * 1000);
        edits.push((t2 - t1) * 1000);
      }
    }
    return { write: spread(writes), edit: spread(edits) };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

function syncCosts(parent: string): { file: Spread; dir: Spread } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, "orca-bench-fsync-")));
  const dir = fs.openSync(base, "r");
  try {
    const files: number[] = [];
    const dirs: number[] = [];
    const data = Buffer.alloc(FILE_BYTES, 120);
    for (let i = 0; i < FILES * ROUNDS; i++) {
      const fd = fs.openSync(path.join(base, `f${i % FILES}`), "w");
      fs.writeSync(fd, data);
      const t0 = performance.now();
      fs.fsyncSync(fd);
      const t1 = performance.now();
      fs.closeSync(fd);
      const t2 = performance.now();
      fs.fsyncSync(dir);
      files.push((t1 - t0) * 1000);
      dirs.push((performance.now() - t2) * 1000);
    }
    return { file: spread(files), dir: spread(dirs) };
  } finally {
    fs.closeSync(dir);
    fs.rmSync(base, { recursive: true, force: true });
  }
}
