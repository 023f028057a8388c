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

// The first full GC waits until the heap needs it. Started as V8 starts it, a `-p` run's heap
// (~14 MB of a 21 MB first limit) sets off incremental marking around the first request whenever
// V8 has grown the young generation past that slack: every run on Node 20 and 24. Marking then
// shares the two threads with the response (steps of up to ~15 ms on the main thread, the workers'
// concurrent marking) and, in runs a GC finishes in, ends in a 5–10 ms pause — paid at the end of
// the run, for memory the process hands back at exit moments later (bench/overhead.ts, last response
// → exit). With incremental marking off, V8 still collects, in one pause, once the old generation
// reaches its limit; after that first full GC incremental marking is on again, so a long session
// (the dashboard, a long run) has V8's usual GC from then on. V8 reads the flag each time it would
// start marking, so setting it here at run time is enough (and it leaves the compile cache valid).
// Not for worker threads' isolates: orca runs none.
export function deferFirstFullGc(v8, perfHooks) {
  v8.setFlagsFromString("--no-incremental-marking");
  const observer = new perfHooks.PerformanceObserver((list) => {
    if (!list.getEntries().some((entry) => entry.detail?.kind === perfHooks.constants.NODE_PERFORMANCE_GC_MAJOR)) return;
    observer.disconnect();
    v8.setFlagsFromString("--incremental-marking");
  });
  observer.observe({ entryTypes: ["gc"] });
}

// Whether argv asks for a headless run (`-p`, `--print`) — only a hint for what to load before the
// flags (bin/orca.js): a wrong answer costs time, never behaviour.
export function headless(argv) {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "-p" || arg === "--print") return true;
  }
  return false;
}
