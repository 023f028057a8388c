// Node 20 keeps no compiled code of ES modules between runs, so each `orca -p` start parsed the
// ~1.4 MB of bundle chunks it loads and compiled each function it ran again. On such a Node (no
// module.enableCompileCache), a `-p` run runs the same code bundled as one script,
// dist/bundle/headless.cjs (scripts/bundle-options.mjs), through vm.Script, whose compiled code V8
// can hand back (createCachedData) and take at the next start (cachedData) — taken after the run,
// so the functions compiled on the way are in it too.
//
// The kept code runs as the user, outside any sandbox: it is kept where Node 22+ keeps its own
// compile cache (bin/compile-cache.js — why there, and how no command can write that folder), as one
// file made private to the user and replaced whole (written aside, then renamed). It is read only
// from a regular file of the user's that nobody else may write, and only with the key it was
// written under: this Node, this V8 and this very headless.cjs (the hash of its content, which the
// build writes on its first line, and its size, time and inode; V8 checks its own version, flags
// and the source's length again, and a rejected one is replaced).
// NODE_DISABLE_COMPILE_CACHE=1 (Node's switch) turns it off; the chunks run then.
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";
import { compileCacheDir } from "./compile-cache.js";

const BUNDLE = fileURLToPath(new URL("../dist/bundle/headless.cjs", import.meta.url));

export function headlessCacheFile(env = process.env, home = os.homedir()) {
  return path.join(compileCacheDir(env, home), "orca-headless.v8");
}

/**
 * For a `-p` run on a Node without a compile cache: `{ main, taken, keep }` from the headless bundle —
 * `taken`: whether V8 took the kept code; `keep` to call once main has returned (it writes the
 * compiled code when there was none to take) — else undefined, and the chunks run as on any other Node.
 */
export function loadHeadlessBundle(argv, nodeModule, env = process.env, home = os.homedir()) {
  if (typeof nodeModule.enableCompileCache === "function" || env.NODE_DISABLE_COMPILE_CACHE === "1") return undefined;
  let source;
  let key;
  try {
    const fd = fs.openSync(BUNDLE, "r");
    try {
      const st = fs.fstatSync(fd);
      // ASCII (the bundle's ascii-chunks pass): latin1 is the same text, read without decoding UTF-8.
      source = fs.readFileSync(fd, "latin1");
      const named = /^\/\/ orca-headless ([0-9a-f]{64})\n/.exec(source.slice(0, 100));
      if (!named) return undefined;
      key = [process.version, process.versions.v8, process.arch, named[1], st.size, st.mtimeMs, st.ino].join(" ");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined; // No headless bundle (a build from before it): the chunks.
  }
  const file = headlessCacheFile(env, home);
  const cachedData = readKept(file, key);
  // Nothing kept, and nowhere to keep it (a read-only home): every run would parse the whole script,
  // twice what the chunks it stands for hold — the chunks then.
  if (cachedData === undefined && !writableDir(path.dirname(file))) return undefined;
  // The bundle imports nothing (scripts/bundle-options.mjs): what it loads, it requires.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __orcaImportMetaUrl) {${source}\n})`, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, path.dirname(BUNDLE), pathToFileURL(BUNDLE).href);
  if (!module.exports.headlessRun(argv)) return undefined;
  const fresh = cachedData === undefined || script.cachedDataRejected === true;
  return { main: module.exports.main, taken: !fresh, keep: () => void (fresh && keep(file, key, script)) };
}

/** The kept code for `key`, or undefined: none, another key's, or a file that is not the user's alone. */
function readKept(file, key) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
    if (!st.isFile() || !mine || (st.mode & 0o022) !== 0) return undefined;
    const data = fs.readFileSync(fd);
    const head = Buffer.from(`${key}\n`);
    return data.subarray(0, head.length).equals(head) ? data.subarray(head.length) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writableDir(dir) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function keep(file, key, script) {
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(aside, Buffer.concat([Buffer.from(`${key}\n`), script.createCachedData()]), { flag: "wx", mode: 0o600 });
    fs.renameSync(aside, file);
  } catch {
    // A folder orca cannot write (a read-only home) only costs the cache.
    fs.rmSync(aside, { force: true });
  }
}
