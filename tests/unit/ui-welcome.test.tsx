import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import type { DashboardHost } from "../../src/ui/host.js";
import { resolveKeymap, type Keymap } from "../../src/ui/keymap.js";
import { WelcomeContext, type WelcomeInfo } from "../../src/ui/Welcome.js";
import { TestSession } from "./ui-session.js";

/** An MCP manager's status as the welcome reads it, changed by the test. */
class FakeMcp {
  private servers = [
    { name: "fs", state: "connecting" },
    { name: "memory", state: "connecting" },
  ];
  private listeners = new Set<() => void>();
  status() {
    return this.servers;
  }
  onChange(listener: () => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  set(name: string, state: string) {
    this.servers = this.servers.map((s) => (s.name === name ? { ...s, state } : s));
    for (const l of this.listeners) l();
  }
}

let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
});

function mount(info: WelcomeInfo | null, opts: { keymap?: Keymap; host?: DashboardHost } = {}) {
  const session = new TestSession();
  const r = render(
    <WelcomeContext.Provider value={info}>
      <App session={session} approver={new DialogApprover()} keymap={opts.keymap} host={opts.host} />
    </WelcomeContext.Provider>,
  );
  unmount = r.unmount;
  const frame = () => r.lastFrame() ?? "";
  const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), { timeout: 5000 });
  return { session, r, frame, see };
}

describe("welcome screen", () => {
  it("lists model, workspace, agents, skills, MCP servers (live) and keys until the first message", async () => {
    const mcp = new FakeMcp();
    const { r, frame, see } = mount({
      version: "9.8.7",
      model: "qwen3:8b",
      endpoint: "http://localhost:11434/v1",
      workspace: "/home/ada/src/calc",
      home: "/home/ada",
      agents: ["coordinator", "editor", "explorer"],
      skills: ["changelog", "pdf-report"],
      mcp: { status: () => mcp.status(), onChange: (l) => mcp.onChange(l) },
    });
    await see("orca 9.8.7");
    expect(frame()).toMatch(/model\s+qwen3:8b · http:\/\/localhost:11434\/v1/);
    expect(frame()).toMatch(/workspace\s+~\/src\/calc/);
    expect(frame()).toMatch(/agents\s+coordinator \(you talk to it\) · editor · explorer/);
    expect(frame()).toMatch(/skills\s+changelog · pdf-report/);
    expect(frame()).toMatch(/MCP\s+fs connecting · memory connecting/);
    expect(frame()).toMatch(/keys\s+Enter send/);

    mcp.set("fs", "connected");
    mcp.set("memory", "failed");
    await see("fs connected · memory failed");

    r.stdin.write("hello there");
    await see("hello there");
    r.stdin.write("\r");
    await vi.waitFor(() => expect(frame()).not.toContain("orca 9.8.7"), { timeout: 5000 });
    expect(frame()).not.toContain("you talk to it");
  });

  it("says none when nothing is loaded, and is not shown without welcome info", async () => {
    const { see, frame } = mount({ version: "1.0.0", model: "m", workspace: "/w", agents: ["coordinator"], skills: [] });
    await see("orca 1.0.0");
    expect(frame()).toMatch(/skills\s+none/);
    expect(frame()).toMatch(/MCP\s+none configured/);
    unmount?.();

    const plain = mount(null);
    await plain.see("test-model");
    expect(plain.frame()).not.toContain("you talk to it");
  });

  it("reads its keys from the keymap in force and points to /help", async () => {
    const { keymap } = resolveKeymap({ submit: "ctrl+s", cycle_mode: "ctrl+t" });
    const { see, frame } = mount({ version: "1.0.0", model: "m", workspace: "/w", agents: ["coordinator"], skills: [] }, { keymap });
    await see("orca 1.0.0");
    expect(frame()).toMatch(/keys\s+Ctrl\+S send · Tab focus a pane · Ctrl\+T mode · Esc cancel · Ctrl\+C exit/);
    expect(frame()).toMatch(/help\s+\/help \(or \? on an empty input\) lists every key and command/);
  });

  it("comes back for the new session after /clear, not for a resumed one", async () => {
    const next = new TestSession();
    const resumed = new TestSession();
    const info = (version: string): WelcomeInfo => ({ version, model: "m", workspace: "/w", agents: ["coordinator"], skills: [] });
    const host: DashboardHost = {
      switchSession: async (to) => (to.resume ? { session: resumed, welcome: null } : { session: next, welcome: info("2.0.0") }),
    };
    const { session, r, see, frame } = mount(info("1.0.0"), { host });
    await see("orca 1.0.0");
    r.stdin.write("hello\r");
    await vi.waitFor(() => expect(frame()).not.toContain("orca 1.0.0"), { timeout: 5000 });
    session.finishRun();
    await see("Ask orca");
    r.stdin.write("/clear\r");
    await see("orca 2.0.0");
    r.stdin.write("/resume abc\r");
    await vi.waitFor(() => expect(frame()).not.toContain("you talk to it"), { timeout: 5000 });
  });
});
