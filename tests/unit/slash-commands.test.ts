import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS } from "../../src/ui/slash.js";
import { SLASH_HANDLERS, type SlashHandlers } from "../../src/ui/slash-commands.js";

const noop = (): void => undefined;

describe("slash commands", () => {
  it("every row of SLASH_COMMANDS has a handler, and every handler a row", () => {
    expect(Object.keys(SLASH_HANDLERS).sort()).toEqual(SLASH_COMMANDS.map((c) => c.name).sort());
  });

  it("a row without a handler, or a handler without a row, is a type error (npm run typecheck checks this file)", () => {
    const { help: _help, ...withoutHelp } = SLASH_HANDLERS;
    // @ts-expect-error help's row has no handler
    const missing: SlashHandlers = withoutHelp;
    // @ts-expect-error version has no row in SLASH_COMMANDS
    const extra: SlashHandlers = { ...SLASH_HANDLERS, version: noop };
    expect(Object.keys(missing)).not.toContain("help");
    expect(Object.keys(extra)).toContain("version");
  });
});
