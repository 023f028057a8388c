import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blockOf, ROOT } from "../../scripts/docs-tables.js";
import { SLASH_COMMANDS } from "../../src/ui/slash.js";

/**
 * What README.md states that the code also says: the slash commands it names exist (the full table
 * is generated into docs/dashboard.md, checked by docs-tables.test.ts), and the Node version it
 * asks for is the one package.json's engines demands.
 */
const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

describe("README.md agrees with the code", () => {
  it("every slash command it names is a command of the dashboard, and the commands table lists them all", () => {
    const named = [...readme.matchAll(/`\/([a-z][\w-]*)(?=[ `])/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    const known = new Set<string>(SLASH_COMMANDS.map((c) => c.name));
    expect(named.filter((n) => !known.has(n))).toEqual([]);
    const table = blockOf(fs.readFileSync(path.join(ROOT, "docs/dashboard.md"), "utf8"), "commands");
    const listed = [...(table ?? "").matchAll(/^\| `\/([a-z][\w-]*)/gm)].map((m) => m[1]!);
    expect(listed).toEqual(SLASH_COMMANDS.map((c) => c.name));
  });

  it("asks for the Node version package.json's engines demands", () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    const floor = /^>=(\d+(?:\.\d+)*)$/.exec(engines)?.[1];
    expect(floor, engines).toBeDefined();
    const stated = [...readme.matchAll(/Node (\d+(?:\.\d+)*) or newer/g)].map((m) => m[1]);
    expect(stated.length).toBeGreaterThan(0);
    expect(new Set(stated)).toEqual(new Set([floor]));
  });
});
