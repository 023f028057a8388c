import fs from "node:fs";
import { beforeAll, afterAll, describe, expect, it, vi } from "vitest";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer } from "../fixtures/rig.js";
import { testCertificate, type TestCertificate } from "../fixtures/test-certificate.js";

/**
 * Preconnect (src/model/preconnect.ts), through the real bin against the scripted server over
 * HTTPS with a certificate made for the test. A UserPromptSubmit hook holds the run before its
 * first request until the test opens a gate, so the test can see the connection open — TLS done,
 * nothing sent — before any request, and then the request arrive on that same connection.
 */

let cert: TestCertificate;

beforeAll(() => {
  cert = testCertificate();
});
afterAll(() => cert.cleanup());

function gatedWorkspace(config = ""): TempWorkspace {
  return tempWorkspace({
    ".orca/config.yaml": `hooks:\n  UserPromptSubmit:\n    - hooks: [{ type: command, command: 'touch started; while [ ! -e gate ]; do sleep 0.02; done' }]\n${config}`,
  });
}

describe("preconnect", () => {
  it("opens the provider's TLS connection before the first request, and the request goes on it", async () => {
    const server = await scriptedServer([{ text: "hello" }], { tls: cert });
    const ws = gatedWorkspace();
    const running = runOrca(["-p", "hi", "--base-url", server.url], { ws, env: { NODE_EXTRA_CA_CERTS: cert.certFile } });
    await vi.waitFor(() => expect(server.connections).toBe(1), { timeout: 20_000, interval: 20 });
    expect(server.requests).toHaveLength(0);
    fs.writeFileSync(ws.file("gate"), "");
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("hello");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.connection).toBe(0);
    expect(server.connections).toBe(1);
  });

  it("model.preconnect: false connects only when the request goes", async () => {
    const server = await scriptedServer([{ text: "hello" }], { tls: cert });
    const ws = gatedWorkspace("model:\n  preconnect: false\n");
    const running = runOrca(["-p", "hi", "--base-url", server.url], { ws, env: { NODE_EXTRA_CA_CERTS: cert.certFile } });
    // The hook runs after start-up, right before the first request: no connection yet.
    await vi.waitFor(() => expect(fs.existsSync(ws.file("started"))).toBe(true), { timeout: 20_000, interval: 20 });
    expect(server.connections).toBe(0);
    fs.writeFileSync(ws.file("gate"), "");
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(server.connections).toBe(1);
    expect(server.requests[0]!.connection).toBe(0);
  });

  it("does not dial round a proxy in the environment: with HTTPS_PROXY set, no connection before the request", async () => {
    const server = await scriptedServer([{ text: "hello" }], { tls: cert });
    const ws = gatedWorkspace();
    // Without NODE_USE_ENV_PROXY Node's fetch itself ignores the variable: the request still goes direct.
    const running = runOrca(["-p", "hi", "--base-url", server.url], { ws, env: { NODE_EXTRA_CA_CERTS: cert.certFile, HTTPS_PROXY: "http://127.0.0.1:9" } });
    await vi.waitFor(() => expect(fs.existsSync(ws.file("started"))).toBe(true), { timeout: 20_000, interval: 20 });
    expect(server.connections).toBe(0);
    fs.writeFileSync(ws.file("gate"), "");
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("hello");
  });
});
