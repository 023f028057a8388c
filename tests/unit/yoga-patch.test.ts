import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("yoga-layout (patched): loading the layout engine", () => {
  it("decodes its WebAssembly without fetch, so the dashboard's first frame does not wait for Node's fetch to compile", () => {
    // A fresh process: yoga loads once per process. Its fetch is counted, not replaced.
    const script = `
      let calls = 0;
      const real = globalThis.fetch;
      globalThis.fetch = (...args) => { calls++; return real(...args); };
      const { default: Yoga } = await import("yoga-layout");
      const node = Yoga.Node.create();
      node.setWidth(42);
      node.calculateLayout();
      process.stdout.write(JSON.stringify({ calls, width: node.getComputedWidth(), fetchKept: globalThis.fetch !== real && typeof globalThis.fetch === "function" }));`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout)).toEqual({ calls: 0, width: 42, fetchKept: true });
  });
});
