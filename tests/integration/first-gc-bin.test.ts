import { expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * A short run starts no full GC (bin/v8-flags.js, deferFirstFullGc): V8 used to start incremental
 * marking around the first request of every `orca -p` on Node 20 and 24 (its heap past a slack
 * smaller than the grown young generation), and the marking and its pause fell between the last
 * response and the exit. Through the real bin and the scripted server, with V8 tracing its marking.
 */
it("`orca -p` with a short answer never starts incremental marking", async () => {
  const server = await scriptedServer([{ text: "hello" }]);
  const ws = workspace();
  // The node command follows the prefix: V8's own trace of every marking it starts, on stdout.
  const run = await runOrca(["-p", "hi", "--base-url", server.url, "--yes"], { ws, prefix: ["bash", "-c", 'exec "$1" --trace-incremental-marking "${@:2}"', "bash"] });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("hello");
  expect(run.stdout).not.toContain("[IncrementalMarking] Start");
});
