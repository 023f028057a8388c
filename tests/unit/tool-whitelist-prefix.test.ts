import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { allowsTool, prefixStarMatcher } from "../../src/agent/definition.js";

// An agent's tool list entry `literal*` is matched without picomatch (src/agent/definition.ts): it
// must answer as picomatch does, for every name.
describe("tool list entries of the form literal*", () => {
  const entries = ["mcp__*", "mcp__github__*", "*", "read_*", "a.b*", "x-y*"];
  const names = ["mcp__", "mcp__a", "mcp__github__issues", "mcp__a/b", "xmcp__a", ".mcp__x", ".hidden", "read_file", "read", "a.bc", "a.b", "aXbc", "x-yz", "", "a/b", "mcp__.x", "MCP__a", "mcp__a/", "a/", "mcp__a\\b", "*", "mcp__*", "\na", "\r", "\u2028x", "\u2029", "a\nb", "mcp__\n", "\tx"];

  it("match as picomatch does", () => {
    for (const entry of entries) {
      const fast = prefixStarMatcher(entry);
      expect(fast, entry).toBeDefined();
      const glob = picomatch(entry);
      for (const name of names) expect(fast!(name), `${entry} ${name}`).toBe(glob(name));
    }
  });

  it("are the only entries matched so: other globs go to picomatch", () => {
    for (const entry of ["mcp__*__x", "*_file", "read_?", "{a,b}*", "!mcp__*", "a/*", "mcp__**", "a\\*", '"*', '"mcp__"*']) expect(prefixStarMatcher(entry), entry).toBeUndefined();
    expect(allowsTool({ tools: ["read_file", "mcp__*"] }, "mcp__fs__read")).toBe(true);
    expect(allowsTool({ tools: ["read_file", "mcp__*"] }, "bash")).toBe(false);
    expect(allowsTool({ tools: ["*_file"] }, "write_file")).toBe(true);
    // picomatch reads a quoted part as its text without the quotes
    expect(allowsTool({ tools: ['"mcp__"*'] }, "mcp__fs__read")).toBe(true);
  });
});
