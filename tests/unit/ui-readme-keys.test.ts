import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { keysMarkdown } from "../../src/ui/docs.js";
import { DEFAULT_KEYMAP } from "../../src/ui/keymap.js";

describe("README", () => {
  it("lists exactly the commands and keys of the keymap table (regenerate with keysMarkdown when it changes)", () => {
    const readme = fs.readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const block = /<!-- keys:start -->\n([\s\S]*?)\n<!-- keys:end -->/.exec(readme)?.[1];
    expect(block).toBe(keysMarkdown(DEFAULT_KEYMAP));
  });
});
