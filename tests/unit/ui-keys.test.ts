import { describe, expect, it } from "vitest";
import { KeyRouter, type KeyPress } from "../../src/ui/keys.js";

const text = (t: string): KeyPress => ({ name: "text", text: t, meta: false });
const named = (name: KeyPress["name"]): KeyPress => ({ name, text: "", meta: false });

function route(presses: KeyPress[]): string[] {
  const router = new KeyRouter();
  const seen: string[] = [];
  router.add(1, { current: (k) => (seen.push(k.name === "text" ? `text:${JSON.stringify(k.text)}` : k.name), true) });
  for (const p of presses) router.dispatch(p);
  return seen;
}

describe("key routing of text chunks", () => {
  it("one line plus CR in a single read is the line, then Enter", () => {
    expect(route([text("hello there\r")])).toEqual(['text:"hello there"', "return"]);
  });

  it("several lines in one read stay text (a paste without bracketed-paste support)", () => {
    expect(route([text("line one\rline two\r")])).toEqual(['text:"line one\\rline two\\r"']);
  });

  it("inside a bracketed paste, Enter and Tab are text", () => {
    expect(route([named("paste_start"), text("a"), named("return"), named("tab"), named("paste_end"), named("return")])).toEqual([
      'text:"a"',
      'text:"\\n"',
      'text:"  "',
      "return",
    ]);
  });
});
