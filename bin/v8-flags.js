// V8 flags the bin sets before it loads anything (bench/render.ts sets the same ones, so the
// dashboard it measures is the one users run).
//
// --liftoff-only: WebAssembly (undici's HTTP parser, the bash grammar, yoga's layout) stays on
// V8's baseline compiler. An optimised recompile runs on a background thread that exit then waits
// for, ~90 ms after every run's last response (bench/overhead.ts); the baseline code is fast
// enough for what these modules parse.
// --no-wasm-tier-up, --no-wasm-dynamic-tiering: what --liftoff-only implies, spelled out. V8 applies
// a flag's implications only to flags given at start, not to ones set here at run time; Node 20's
// V8 honoured --liftoff-only alone, Node 24's does not, and there the optimising compiler still
// compiled WebAssembly on a background thread: ~15 MB of compiler memory at the peak of every run
// (heaptrack: turboshaft's wasm pipeline), peak RSS at one sub-agent 118 → 98 MB (bench/fanout.ts).
//
// --no-turbo-inlining: the optimising compiler compiles each hot function alone instead of with
// its callees inlined. A streaming dashboard makes React's, Ink's and the markdown renderer's
// paths hot at once, and compiling them inlined took ~6 % of a core on V8's background threads in
// the first seconds of a stream; without inlining that falls to ~4.5 % while frames cost the same
// or less (bench/render.ts, 15 s: 11.8–12.0 % → 10.6–10.9 % of a core in all). The cost is in
// token counting, a headless run's hottest loop (bench/tokens.ts): prose the same, a 1 MB single
// line ~12 % slower (80–86 → 93–94 ms), far inside its 500 ms target.
export const V8_FLAGS = ["--liftoff-only", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering", "--no-turbo-inlining"];

// No GC flag is set here. Turning incremental marking off until the first full GC took ~10 ms off a
// `-p` run's exit, but it hung 1 run in ~400 under load on Node 24: at process.exit Node joins V8's
// worker threads, and a background compile job (Sparkplug's) that needed memory was waiting for the
// main thread to collect — which, exiting, never did (gdb: CollectionBarrier::AwaitCollectionBackground
// on the worker, WorkerThreadsTaskRunner::Shutdown on the main thread). docs/benchmarks.md, issue 32.

// Whether argv asks for a headless run (`-p`, `--print`) — only a hint for what to load before the
// flags (bin/orca.js): a wrong answer costs time, never behaviour.
export function headless(argv) {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "-p" || arg === "--print") return true;
  }
  return false;
}
