import fs from "node:fs";
import path from "node:path";
import { tempName } from "../util/atomic-write.js";
import { contentHash } from "../util/content-hash.js";
import { sessionsDir } from "./store.js";

/**
 * The contents of the file versions a session saw and made, addressed by their content hash
 * (util/content-hash.ts): `<data_dir>/sessions/<id>.content/<first 2 hex>/<hash>`. Change sets
 * diff from it and rewind, undo and review restore from it (DESIGN §14), without git.
 *
 * Deduplicated: a version is written once however often it is seen. Capped, so a session that
 * reads a large tree cannot fill the disk: a file over MAX_FILE_BYTES is not kept (its change is
 * listed, with no diff, and cannot be restored), and once the session's store holds
 * MAX_TOTAL_BYTES nothing more is kept. Removed with its session: it sits beside the session's log,
 * and `orca sessions --reap` removes a store whose log is gone.
 */

/** A version larger than this is not kept: source files are far smaller, and a diff of it would not be read. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** What one session may keep in all. */
export const MAX_TOTAL_BYTES = 512 * 1024 * 1024;

/** What the tools hand their file contents to (tools/versions.ts); the store, or nothing. */
export interface ContentKeeper {
  /** Keeps `data` under its hash (given when the caller has it); false when it was not kept (too large, full, unwritable). */
  keep(data: Buffer | string, hash?: string): boolean;
}

/** What a diff or a restore reads contents from. */
export interface ContentSource {
  /** The content with this hash, or null when it was not kept. */
  read(hash: string): Buffer | null;
}

export function contentDir(dataDir: string, sessionId: string): string {
  return path.join(sessionsDir(dataDir), `${sessionId}.content`);
}

const HASH = /^[0-9a-f]{32}$/;

export class ContentStore implements ContentKeeper, ContentSource {
  /** Bytes kept so far; counted from the folder on first use (a resumed session's store). */
  private total: number | undefined;
  private readonly known = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly limits: { maxFileBytes: number; maxTotalBytes: number } = { maxFileBytes: MAX_FILE_BYTES, maxTotalBytes: MAX_TOTAL_BYTES },
  ) {}

  static forSession(dataDir: string, sessionId: string): ContentStore {
    return new ContentStore(contentDir(dataDir, sessionId));
  }

  keep(data: Buffer | string, hash?: string): boolean {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    if (bytes.length > this.limits.maxFileBytes) return false;
    const key = hash ?? contentHash(bytes);
    if (this.known.has(key)) return true;
    const file = this.fileOf(key);
    if (fs.existsSync(file)) {
      this.known.add(key);
      return true;
    }
    const total = this.totalBytes();
    if (total + bytes.length > this.limits.maxTotalBytes) return false;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Written beside and renamed: a crash leaves the whole content or none, never a torn one under its hash.
      const temp = path.join(path.dirname(file), tempName());
      fs.writeFileSync(temp, bytes, { mode: 0o600, flag: "wx" });
      fs.renameSync(temp, file);
    } catch {
      // Unwritable data dir: the change is still logged; it just cannot be diffed or restored.
      return false;
    }
    this.total = total + bytes.length;
    this.known.add(key);
    return true;
  }

  read(hash: string): Buffer | null {
    if (!HASH.test(hash)) return null;
    try {
      const bytes = fs.readFileSync(this.fileOf(hash));
      // A damaged entry is not the version it names: never restore it.
      return contentHash(bytes) === hash ? bytes : null;
    } catch {
      return null;
    }
  }

  has(hash: string): boolean {
    return HASH.test(hash) && (this.known.has(hash) || fs.existsSync(this.fileOf(hash)));
  }

  private fileOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  private totalBytes(): number {
    if (this.total !== undefined) return this.total;
    let total = 0;
    for (const sub of readdirOrEmpty(this.dir)) for (const name of readdirOrEmpty(path.join(this.dir, sub))) total += sizeOf(path.join(this.dir, sub, name));
    return (this.total = total);
  }
}

/** Removes the content stores whose session log is gone; returns the session ids removed. */
export function removeOrphanContent(dataDir: string): string[] {
  const dir = sessionsDir(dataDir);
  const removed: string[] = [];
  for (const name of readdirOrEmpty(dir)) {
    if (!name.endsWith(".content")) continue;
    const id = name.slice(0, -".content".length);
    if (fs.existsSync(path.join(dir, `${id}.jsonl`))) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    removed.push(id);
  }
  return removed;
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
