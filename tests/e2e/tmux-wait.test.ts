/**
 * The e2e rig's wait (TmuxTerminal.waitFor): a predicate may assert, and then it holds only once
 * none of its `expect`s throws; a timeout names the last one that failed. A shell in tmux prints
 * half a line, then the rest when Enter reaches it, so the half stays on screen for as long as the
 * test likes.
 */
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";
import { terminal } from "./rig.js";

describe("TmuxTerminal.waitFor", () => {
  it("waits while an expect in the predicate fails, names it on timeout, and returns the screen once all hold", async () => {
    const t = terminal("wait");
    t.start(`printf 'first half'; read _; printf 'second half'; sleep 60`, 40, 5, ROOT);
    await t.waitFor("the first half", (s) => s.includes("first half"));
    const half = t.waitFor("the whole line", (s) => {
      expect(s).toContain("first half");
      expect(s).toContain("second half");
    }, 500);
    await expect(half).rejects.toThrow(/timed out waiting for the whole line \(expected .* to contain 'second half'\); the screen was:\nfirst half/s);
    // A predicate returning false is not held either.
    await expect(t.waitFor("nothing", () => false, 200)).rejects.toThrow(/timed out waiting for nothing; the screen was/);
    // One that forgot its return (nothing returned, nothing asserted) would hold on any screen: refused.
    await expect(
      t.waitFor("a forgotten return", (s) => {
        s.includes("never shown");
      }),
    ).rejects.toThrow("waiting for a forgotten return: the predicate returned nothing and asserted nothing");

    t.keys("Enter");
    const whole = await t.waitFor("the whole line", (s) => {
      expect(s).toContain("first half");
      expect(s).toContain("second half");
    });
    expect(whole).toMatch(/first half\n+second half/);
  });
});
