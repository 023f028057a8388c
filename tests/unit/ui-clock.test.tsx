import { Text } from "ink";
import { render } from "ink-testing-library";
import { useRef, type MutableRefObject } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FRAME_MS, useClock } from "../../src/ui/hooks/use-ticker.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A component on the dashboard's clock that counts its renders and hands out its `drawn` ref. */
function clocked(): { renders: () => number; drawn: () => MutableRefObject<number>; unmount: () => void } {
  let renders = 0;
  let ref: MutableRefObject<number> | undefined;
  function Clocked(): React.JSX.Element {
    const drawn = useRef(0);
    ref = drawn;
    renders++;
    return <Text>{useClock(FRAME_MS, true, drawn)}</Text>;
  }
  const app = render(<Clocked />);
  return { renders: () => renders, drawn: () => ref!, unmount: app.unmount };
}

describe("the dashboard's clock", () => {
  it("ticks 8 times a second while nothing else draws the time", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const c = clocked();
    const before = c.renders();
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.renders() - before).toBeGreaterThanOrEqual(7);
    c.unmount();
  });

  it("adds no render of its own while the body draws for the store's flushes, but for the header's second", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const c = clocked();
    // What LiveDashboard does at each flush it renders: it draws the time and says so.
    const flushes = setInterval(() => (c.drawn().current = Date.now()), 42);
    const before = c.renders();
    await vi.advanceTimersByTimeAsync(3000);
    clearInterval(flushes);
    // Once a second for the header's clock (whole seconds), not 8 times a second beside the flushes.
    const added = c.renders() - before;
    expect(added).toBeGreaterThanOrEqual(2);
    expect(added).toBeLessThanOrEqual(4);
    c.unmount();
  });
});
