import { describe, expect, it } from "vitest";
import { canonicalKey } from "../../src/config/keys.js";
import { configSchema } from "../../src/config/schema.js";
import { KeyRouter, keyOf, splitControls, TypedKeys, type KeyPress, type LayerHandlers } from "../../src/ui/keys.js";
import { BINDINGS, DEFAULT_KEYMAP, KeyPriority, keyLabel, resolveKeymap } from "../../src/ui/keymap.js";

const text = (t: string): KeyPress => ({ name: "text", text: t, meta: false });
const named = (name: KeyPress["name"], t = ""): KeyPress => ({ name, text: t, meta: false });

/** A router with one input-like layer that records what reached it. */
function route(presses: KeyPress[]): string[] {
  const router = new KeyRouter();
  const seen: string[] = [];
  const handlers: LayerHandlers = {
    actions: { submit: () => void seen.push("submit"), newline: () => void seen.push("newline") },
    text: (k) => (seen.push(`text:${JSON.stringify(k.text)}${k.pasted ? " (pasted)" : ""}`), true),
  };
  router.add(KeyPriority.Input, { current: handlers });
  for (const p of presses) router.dispatch(p);
  return seen;
}

describe("key routing of text chunks", () => {
  it("one line plus CR in a single read is the line, then Enter", () => {
    expect(route([text("hello there\r")])).toEqual(['text:"hello there" (pasted)', "submit"]);
  });

  it("several lines in one read stay text (a paste without bracketed-paste support)", () => {
    expect(route([text("line one\rline two\r")])).toEqual(['text:"line one\\rline two\\r" (pasted)']);
  });

  it("inside a bracketed paste, Enter and Tab are text", () => {
    expect(route([named("paste_start"), text("a"), named("return"), named("tab"), named("paste_end"), named("return")])).toEqual([
      'text:"a" (pasted)',
      'text:"\\n" (pasted)',
      'text:"  " (pasted)',
      "submit",
    ]);
  });
});

describe("keys that came in one read", () => {
  const split = (...presses: KeyPress[]): KeyPress[] => {
    const typed = new TypedKeys();
    return presses.flatMap((p) => typed.split(p));
  };
  const ctrl = (letter: string): KeyPress => named("ctrl", letter);

  it("text split from a control character in one read is pasted text, never a command key", () => {
    const pasted = (t: string): KeyPress => ({ ...text(t), pasted: true });
    expect(split(text("x\u0015y"))).toEqual([pasted("x"), ctrl("u"), pasted("y")]);
    expect(route(split(text("\u0001y\r")))).toEqual(['text:"a"', 'text:"y\\r" (pasted)']);
  });

  it("presses Ink parsed from one read: with several, their text is pasted (an arrow's sequence then y is no y key)", () => {
    const pasted = (t: string): KeyPress => ({ ...text(t), pasted: true });
    expect(new TypedKeys().read([named("up"), text("y")])).toEqual([named("up"), pasted("y")]);
    expect(new TypedKeys().read([text("y")])).toEqual([text("y")]);
    expect(new TypedKeys().read([named("up"), named("down")])).toEqual([named("up"), named("down")]);
  });

  it("two Ctrl+C read together are two Ctrl+C, not the text \\u0003\\u0003", () => {
    expect(split(text("\u0003\u0003"))).toEqual([ctrl("c"), ctrl("c")]);
  });

  it("text, Backspace (DEL or Ctrl+H) and Ctrl+letters come apart in order", () => {
    const typed = (t: string): KeyPress => ({ ...text(t), pasted: true });
    expect(split(text("typo\u007fed\u0008!\u0015x"))).toEqual([typed("typo"), named("backspace"), typed("ed"), named("backspace"), typed("!"), ctrl("u"), typed("x")]);
  });

  it("Tab, LF and CR stay in the text (the router's line-then-Enter and paste rules see them)", () => {
    expect(split(text("a\tb\nc\r"))).toEqual([text("a\tb\nc\r")]);
    expect(splitControls("plain")).toEqual(["plain"]);
  });

  it("inside a bracketed paste a control character is text, marked pasted; after it, keys again", () => {
    expect(split(named("paste_start"), text("x\u0003y"), named("paste_end"), text("z\u0003"))).toEqual([
      named("paste_start"),
      { ...text("x\u0003y"), pasted: true },
      named("paste_end"),
      { ...text("z"), pasted: true },
      ctrl("c"),
    ]);
  });
});

describe("the keymap", () => {
  it("routes a key to the highest layer whose handler takes it; a handler that declines passes it on", () => {
    const router = new KeyRouter();
    const seen: string[] = [];
    let zoomTakes = false;
    router.add(KeyPriority.Dashboard, { current: { actions: { zoom: () => void seen.push("dashboard zoom") } } });
    router.add(KeyPriority.Input, { current: { actions: {}, text: (k) => (seen.push(`typed ${k.text}`), true) } });
    router.add(KeyPriority.Zoom, { current: { actions: { unzoom: () => (zoomTakes ? void seen.push("unzoom") : false) } } });
    router.dispatch(text("z"));
    zoomTakes = true;
    router.dispatch(text("z"));
    router.dispatch(text("x"));
    expect(seen).toEqual(["dashboard zoom", "unzoom", "typed x"]);
  });

  it("a modal layer stops every key it does not let through", () => {
    const router = new KeyRouter();
    const seen: string[] = [];
    router.add(KeyPriority.Dashboard, { current: { actions: { interrupt: () => void seen.push("interrupt"), focus_next: () => void seen.push("tab") } } });
    router.add(KeyPriority.Dialog, { current: { actions: {}, modal: (k) => !(k.name === "ctrl" && k.text === "c") } });
    router.dispatch(named("tab"));
    router.dispatch(named("ctrl", "c"));
    expect(seen).toEqual(["interrupt"]);
  });

  it("rebinds actions from config and reports unknown actions and unreadable keys by their path", () => {
    const { keymap, errors } = resolveKeymap({ cycle_mode: "ctrl+t", focus_prev: ["shift+tab"], frobnicate: "x", zoom: "ctrl+alt+nope" });
    expect(keymap.match(KeyPriority.Dashboard, "ctrl+t")).toEqual(["cycle_mode"]);
    expect(keymap.match(KeyPriority.Dashboard, "shift+tab")).toEqual(["focus_prev"]);
    expect(errors[0]).toMatch(/^keys\.frobnicate: no such action/);
    expect(errors[1]).toBe('keys.zoom: "ctrl+alt+nope" is not a key');
  });

  it("config.yaml's keys: is checked for keys that cannot be typed, by path", () => {
    expect(configSchema.safeParse({ keys: { zoom: ["z", "ctrl+z"], cycle_mode: "ctrl+t" } }).success).toBe(true);
    const bad = configSchema.safeParse({ keys: { zoom: "hyper+z" } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["keys", "zoom"]);
  });

  it("knows every key it binds by default, and labels them as the user reads them", () => {
    for (const b of BINDINGS) for (const k of b.keys) expect(canonicalKey(k), `${b.action}: ${k}`).not.toBeNull();
    expect(keyLabel("ctrl+c")).toBe("Ctrl+C");
    expect(keyLabel("shift+tab")).toBe("Shift+Tab");
    expect(keyLabel("up")).toBe("↑");
    expect(canonicalKey("Shift+A")).toBe("A");
    expect(canonicalKey("Ctrl++")).toBe("ctrl++");
    expect(keyOf(named("backtab"))).toBe("shift+tab");
    expect(keyOf({ name: "return", text: "", meta: true })).toBe("alt+enter");
    expect(keyOf({ ...text("y"), pasted: true })).toBeNull();
    expect(DEFAULT_KEYMAP.match(KeyPriority.Dialog, "y")).toEqual(["allow_once"]);
  });
});
