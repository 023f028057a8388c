import { describe, expect, it } from "vitest";
import { AgentSlots } from "../../src/orchestrator/slots.js";

/** A promise and the function that settles it. */
function gate(): { open(): void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AgentSlots (agents.max_parallel)", () => {
  it("holds at most max at a time; the next in line gets a freed slot", async () => {
    const slots = new AgentSlots(2);
    expect(await slots.acquire("a")).toBe(true);
    expect(await slots.acquire("b")).toBe(true);
    let third = false;
    const c = slots.acquire("c").then((ok) => (third = ok));
    await tick();
    expect(third).toBe(false);
    slots.release("a");
    await c;
    expect(third).toBe(true);
  });

  it("a parent waiting on its child gives its slot up and takes one again, in turn, when the wait ends", async () => {
    const slots = new AgentSlots(1);
    expect(await slots.acquire("mid")).toBe(true);
    const leafDone = gate();
    const leaf = (async () => {
      expect(await slots.acquire("leaf")).toBe(true);
      await leafDone.opened;
      slots.release("leaf");
    })();
    let midBack = false;
    const waited = slots.whileWaiting("mid", leaf).then(() => (midBack = true));
    await tick();
    // The leaf runs in mid's slot; mid is not back before the leaf has let it go.
    expect(midBack).toBe(false);
    leafDone.open();
    await waited;
    expect(midBack).toBe(true);
    // mid holds the one slot again: a newcomer waits.
    let other = false;
    void slots.acquire("other").then((ok) => (other = ok));
    await tick();
    expect(other).toBe(false);
    slots.release("mid");
    await tick();
    expect(other).toBe(true);
  });

  it("two waits of one agent at once (two delegate calls in a turn) give up one slot and take back one", async () => {
    const slots = new AgentSlots(1);
    await slots.acquire("mid");
    const a = gate();
    const b = gate();
    const first = slots.whileWaiting("mid", a.opened);
    const second = slots.whileWaiting("mid", b.opened);
    expect(await slots.acquire("leaf")).toBe(true);
    slots.release("leaf");
    a.open();
    await first;
    // Still waiting on b: the slot is free for others.
    expect(await slots.acquire("leaf2")).toBe(true);
    slots.release("leaf2");
    b.open();
    await second;
    let other = false;
    void slots.acquire("other").then((ok) => (other = ok));
    await tick();
    expect(other).toBe(false);
  });

  it("a wait for a slot ends at once when its signal aborts, and holds nothing", async () => {
    const slots = new AgentSlots(1);
    await slots.acquire("a");
    const controller = new AbortController();
    const queued = slots.acquire("b", controller.signal);
    controller.abort();
    expect(await queued).toBe(false);
    slots.release("a");
    expect(await slots.acquire("c")).toBe(true);
  });
});
