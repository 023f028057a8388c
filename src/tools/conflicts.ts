import path from "node:path";
import type { Access } from "../events/types.js";

/**
 * When two tool calls may not overlap. A call touches paths for reading or writing; write/write and
 * read/write on the same path conflict, and a path covers everything below it, compared on whole
 * segments (`/a/b` covers `/a/b/c`, not `/a/bc`). Pseudo-paths such as `mcp:github` compare the
 * same way but never meet a file path. "exclusive" conflicts with everything.
 *
 * A command (a bash command that may write) is a third mode: it conflicts with writes and other
 * commands on its paths, never with reads. Readers need no lock against it: a read taken while it
 * runs records the version it saw, and a write based on a version the command then changed is
 * refused as stale (versions.ts).
 */

export type AccessMode = "read" | "write" | "command";

/** `scheme:` prefixes (two letters or more, so a Windows drive letter is not one). */
const PSEUDO_PATH = /^[A-Za-z][A-Za-z0-9+.-]+:/;
/** The first segment of every file path, so the filesystem root is a node like any other. */
const FS_ROOT = "/";

/**
 * Sessions touch the same few hundred paths over and over; resolving and splitting them again for
 * every call was a tenth of the scheduler's cost. Bounded, and only ever cleared whole: the
 * segments depend on nothing but the string (and the process's cwd, which orca never changes).
 */
const segmentCache = new Map<string, readonly string[]>();
const SEGMENT_CACHE_MAX = 4096;

/** The segments a path is compared on: file paths are resolved first, pseudo-paths kept as written. */
export function pathSegments(p: string): readonly string[] {
  let segs = segmentCache.get(p);
  if (segs) return segs;
  segs = PSEUDO_PATH.test(p)
    ? p.split("/").filter((s) => s.length > 0)
    : [FS_ROOT, ...path.resolve(p).split(path.sep).filter((s) => s.length > 0)];
  if (segmentCache.size >= SEGMENT_CACHE_MAX) segmentCache.clear();
  segmentCache.set(p, segs);
  return segs;
}

/** True when one of the two paths is the other or a directory above it. */
export function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export interface NormalisedAccess {
  exclusive: boolean;
  /** Paths written; a path both read and written is only listed here. */
  writes: ReadonlyArray<readonly string[]>;
  reads: ReadonlyArray<readonly string[]>;
  /** Paths a command may write: they wait for writes and commands, not for reads. */
  commands: ReadonlyArray<readonly string[]>;
}

const EXCLUSIVE: NormalisedAccess = { exclusive: true, writes: [], reads: [], commands: [] };
const NONE: ReadonlyArray<readonly string[]> = [];

export function normaliseAccess(access: Access): NormalisedAccess {
  if (access === "exclusive") return EXCLUSIVE;
  if (access.command) {
    // A command's reads add nothing: it already waits for every writer of the paths it may write.
    return { exclusive: false, writes: NONE, reads: NONE, commands: access.writes.map(pathSegments) };
  }
  // Most calls touch one path: skip the de-duplication sets for them.
  if (access.writes.length + access.reads.length <= 1) {
    return {
      exclusive: false,
      writes: access.writes.map(pathSegments),
      reads: access.reads.map(pathSegments),
      commands: NONE,
    };
  }
  // Duplicates would only cost index work (conflicts are collected into a set), so identity of
  // the cached segments is a good enough key.
  const seen = new Set<readonly string[]>();
  const unique = (paths: readonly string[]) => {
    const out: Array<readonly string[]> = [];
    for (const p of paths) {
      const segs = pathSegments(p);
      if (seen.has(segs)) continue;
      seen.add(segs);
      out.push(segs);
    }
    return out;
  };
  const writes = unique(access.writes);
  return { exclusive: false, writes, reads: unique(access.reads), commands: NONE };
}

const any = (xs: ReadonlyArray<readonly string[]>, ys: ReadonlyArray<readonly string[]>) => xs.some((x) => ys.some((y) => overlaps(x, y)));

/** The pairwise rule, for callers that compare two calls directly (the bench's ideal schedule). */
export function accessConflicts(a: NormalisedAccess, b: NormalisedAccess): boolean {
  if (a.exclusive || b.exclusive) return true;
  if (any(a.writes, b.writes) || any(a.writes, b.reads) || any(a.reads, b.writes)) return true;
  // A command meets writes and commands, never reads.
  return any(a.commands, b.commands) || any(a.commands, b.writes) || any(a.writes, b.commands);
}

interface Node<T> {
  readonly parent: Node<T> | null;
  readonly key: string;
  children: Map<string, Node<T>> | null;
  readers: Set<T> | null;
  writers: Set<T> | null;
  commands: Set<T> | null;
  /** Entries at this node and below, so empty branches are pruned and skipped. */
  entries: number;
  /** Writer entries at this node and below, so a reader only descends where a writer is. */
  writersBelow: number;
  /** Command entries at this node and below, so a command descends only where a writer or command is. */
  commandsBelow: number;
}

/** Where an item was added, to remove it again without a search. */
export interface IndexHandle<T> {
  readonly node: Node<T>;
  readonly mode: AccessMode;
}

/**
 * The paths of the calls that have not finished, as a tree of segments. Finding a new call's
 * conflicts walks its own path and the live entries below it, never the whole history.
 */
export class PathIndex<T> {
  private readonly root: Node<T> = newNode(null, "");

  add(segs: readonly string[], mode: AccessMode, item: T): IndexHandle<T> {
    let node = this.root;
    bump(node, mode, 1);
    for (const seg of segs) {
      node.children ??= new Map();
      let child = node.children.get(seg);
      if (!child) {
        child = newNode(node, seg);
        node.children.set(seg, child);
      }
      node = child;
      bump(node, mode, 1);
    }
    if (mode === "write") (node.writers ??= new Set()).add(item);
    else if (mode === "command") (node.commands ??= new Set()).add(item);
    else (node.readers ??= new Set()).add(item);
    return { node, mode };
  }

  remove(handle: IndexHandle<T>, item: T): void {
    const { node, mode } = handle;
    if (mode === "write") node.writers?.delete(item);
    else if (mode === "command") node.commands?.delete(item);
    else node.readers?.delete(item);
    for (let n: Node<T> | null = node; n; n = n.parent) {
      bump(n, mode, -1);
      if (n.entries === 0 && n.parent) n.parent.children?.delete(n.key);
    }
  }

  /** Adds to `out` every live item that conflicts with `mode` on `segs`. */
  collect(segs: readonly string[], mode: AccessMode, out: Set<T>): void {
    let node: Node<T> | undefined = this.root;
    addFrom(node, mode, out);
    for (const seg of segs) {
      node = node.children?.get(seg);
      if (!node) return;
      addFrom(node, mode, out);
    }
    if (node.children) for (const child of node.children.values()) collectBelow(child, mode, out);
  }
}

function newNode<T>(parent: Node<T> | null, key: string): Node<T> {
  return { parent, key, children: null, readers: null, writers: null, commands: null, entries: 0, writersBelow: 0, commandsBelow: 0 };
}

function bump<T>(node: Node<T>, mode: AccessMode, delta: number): void {
  node.entries += delta;
  if (mode === "write") node.writersBelow += delta;
  else if (mode === "command") node.commandsBelow += delta;
}

/** What `mode` meets: a read meets writes; a write meets everything; a command meets writes and commands. */
function addFrom<T>(node: Node<T>, mode: AccessMode, out: Set<T>): void {
  if (node.writers) for (const item of node.writers) out.add(item);
  if (mode !== "read" && node.commands) for (const item of node.commands) out.add(item);
  if (mode === "write" && node.readers) for (const item of node.readers) out.add(item);
}

function nothingBelow<T>(node: Node<T>, mode: AccessMode): boolean {
  if (mode === "write") return node.entries === 0;
  if (mode === "command") return node.writersBelow + node.commandsBelow === 0;
  return node.writersBelow === 0;
}

function collectBelow<T>(node: Node<T>, mode: AccessMode, out: Set<T>): void {
  if (nothingBelow(node, mode)) return;
  addFrom(node, mode, out);
  if (node.children) for (const child of node.children.values()) collectBelow(child, mode, out);
}
