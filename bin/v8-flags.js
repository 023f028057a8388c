// V8 flags the bin sets before it loads anything (bench/render.ts sets the same ones, so the
// dashboard it measures is the one users run).
//
// --liftoff-only: WebAssembly (undici's HTTP parser, the bash grammar, yoga's layout) stays on
// V8's baseline compiler. An optimised recompile runs on a background thread that exit then waits
// for, ~90 ms after every run's last response (bench/overhead.ts); the baseline code is fast
// enough for what these modules parse.
//
// --no-turbo-inlining: the optimising compiler compiles each hot function alone instead of with
// its callees inlined. A streaming dashboard makes React's, Ink's and the markdown renderer's
// paths hot at once, and compiling them inlined took ~6 % of a core on V8's background threads in
// the first seconds of a stream; without inlining that falls to ~4.5 % while frames cost the same
// or less (bench/render.ts, 15 s: 11.8–12.0 % → 10.6–10.9 % of a core in all). The cost is in
// token counting, a headless run's hottest loop (bench/tokens.ts): prose the same, a 1 MB single
// line ~12 % slower (80–86 → 93–94 ms), far inside its 500 ms target.
export const V8_FLAGS = ["--liftoff-only", "--no-turbo-inlining"];
