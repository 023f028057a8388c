import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bin } from "../fixtures/mcp-servers.js";

/**
 * The official MCP conformance suite (0.1.13) against orca's client: it starts a test server per
 * scenario, runs tests/fixtures/conformance-client.ts (which uses McpManager) and checks the traffic.
 */

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-conformance-"));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

interface Check {
  id: string;
  status: string;
  description?: string;
  errorMessage?: string;
}

/** The suite prints its summary on stderr; `output` is both streams. */
function runScenario(scenario: string): Promise<{ code: number; output: string; checks: Check[] }> {
  const args = ["client", "--command", "node --import tsx tests/fixtures/conformance-client.ts", "--scenario", scenario, "-o", outDir];
  return new Promise((resolve) => {
    execFile(bin("conformance"), args, { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      const runDir = fs
        .readdirSync(outDir)
        .filter((d) => d.startsWith(`${scenario.replace(/\//g, "-")}-`) || d.startsWith(`${scenario}-`))
        .sort()
        .at(-1);
      const file = runDir ? path.join(outDir, runDir, "checks.json") : undefined;
      const checks = file && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Check[]) : [];
      resolve({ code, output: `${stdout}\n${stderr}`, checks });
    });
  });
}

describe("MCP conformance suite (client scenarios)", () => {
  for (const scenario of ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]) {
    it(`passes ${scenario}`, async () => {
      const { code, output, checks } = await runScenario(scenario);
      const failures = checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);
      expect(failures).toEqual([]);
      expect(checks.filter((c) => c.status === "SUCCESS").length).toBeGreaterThan(0);
      expect(output).toContain("OVERALL: PASSED");
      expect(code).toBe(0);
    }, 120_000);
  }
});
