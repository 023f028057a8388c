import { createRequire } from "node:module";
import type { Parser, Tree } from "web-tree-sitter";

/**
 * bash's grammar, through tree-sitter (web-tree-sitter + tree-sitter-bash, both WebAssembly: no
 * native build, the same on every platform). Loading takes a few tens of milliseconds, once per
 * process and asynchronously; parsing is then synchronous and takes a fraction of a millisecond,
 * so the permission check, the scheduler's read/write hint and the rule matcher all read the same
 * tree. Until it is loaded, nothing can be parsed: callers treat that as "not certain".
 */

let parser: Parser | null = null;
let loading: Promise<void> | null = null;

/** Loads the grammar; safe to call any number of times. Rejects when the wasm files are missing. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    // Resolved from this file, not the bundle's location: the wasm files stay in node_modules.
    const require = createRequire(import.meta.url);
    // Imported here, not at the top: the module is only needed once the grammar loads.
    const { Language, Parser } = await import("web-tree-sitter");
    const runtime = require.resolve("web-tree-sitter/web-tree-sitter.wasm");
    await Parser.init({ locateFile: () => runtime });
    const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const p: Parser = new Parser();
    p.setLanguage(bash);
    parser = p;
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

export function shellParserLoaded(): boolean {
  return parser !== null;
}

/** The syntax tree of `text`, or null before the grammar is loaded. The caller deletes the tree. */
export function parseTree(text: string): Tree | null {
  return parser?.parse(text) ?? null;
}
