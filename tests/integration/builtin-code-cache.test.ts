/**
 * Node's built-in modules come with V8 code compiled when Node was built, which V8 takes only while
 * its flags are Node's own. The bin sets V8 flags at run time (bin/v8-flags.js), so a built-in
 * loaded after them is compiled from source; a headless run loads Node's fetch — undici and the
 * http, tls, crypto and zlib modules it requires — before the flags (bin/orca.js). Node tells which
 * built-ins' code it took: NODE_DEBUG_NATIVE=CODE_CACHE ("Code cache of <id> (…) is accepted").
 */
import { describe, expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { headless } from "../../bin/v8-flags.js";

/** Per built-in `orca -p hi` loaded, whether V8 took Node's compiled code for it. */
async function codeCacheOfBuiltins(): Promise<Map<string, "accepted" | "rejected">> {
  const server = await scriptedServer([{ text: "hello" }]);
  const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws: workspace(), env: { NODE_DEBUG_NATIVE: "CODE_CACHE" } });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim()).toBe("hello");
  const verdicts = new Map<string, "accepted" | "rejected">();
  for (const match of run.stderr.matchAll(/^Code cache of (\S+) \([^)]*\) is (accepted|rejected)$/gm)) verdicts.set(match[1]!, match[2] as "accepted" | "rejected");
  return verdicts;
}

describe("Node's compiled code for its built-ins, in a headless run", () => {
  it("is taken for Node's fetch and the modules it requires, loaded before the bin's V8 flags", async () => {
    const verdicts = await codeCacheOfBuiltins();
    for (const id of ["internal/deps/undici/undici", "perf_hooks", "http", "tls", "crypto", "zlib", "internal/webstreams/readablestream"]) {
      expect(verdicts.get(id), id).toBe("accepted");
    }
  }, 60_000);
});

describe("headless(argv): whether to load fetch before the flags", () => {
  it("is a -p or --print before any --", () => {
    expect(headless(["-p", "hi"])).toBe(true);
    expect(headless(["--model", "m", "--print"])).toBe(true);
    expect(headless(["hi"])).toBe(false);
    expect(headless(["sessions"])).toBe(false);
    expect(headless(["--", "-p"])).toBe(false);
  });
});
