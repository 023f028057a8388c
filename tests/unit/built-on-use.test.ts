import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtOnUse } from "../../src/util/built-on-use.js";
import { configSchema } from "../../src/config/schema.js";

/**
 * Schemas made on first use (src/util/built-on-use.ts) stand for the schema they make: parsing,
 * errors, `instanceof`, nesting in other schemas and their methods behave as the schema's own.
 */
describe("a schema made on first use", () => {
  it("is made at its first use, once, not when it is declared", () => {
    let made = 0;
    const schema = builtOnUse(() => {
      made++;
      return z.strictObject({ name: z.string().min(1) });
    });
    expect(made).toBe(0);
    expect(schema.parse({ name: "a" })).toEqual({ name: "a" });
    expect(schema.safeParse({ name: "" }).success).toBe(false);
    expect(made).toBe(1);
  });

  it("answers instanceof, `in`, its shape and its methods as the schema it makes", () => {
    const schema = builtOnUse(() => z.strictObject({ name: z.string(), n: z.number().default(2) }));
    expect(schema instanceof z.ZodObject).toBe(true);
    expect("shape" in schema).toBe(true);
    expect(Object.keys(schema.shape)).toEqual(["name", "n"]);
    expect(schema.partial().parse({})).toEqual({ n: 2 });
    expect(schema.prefault({ name: "x" }).parse(undefined)).toEqual({ name: "x", n: 2 });
  });

  it("nested in another schema (made on use or not), parses and fails with the same issues as the plain one", () => {
    const make = () => z.union([z.strictObject({ a: z.string() }), z.strictObject({ b: z.number().positive() })]);
    const lazy = z.record(z.string(), builtOnUse(make));
    const plain = z.record(z.string(), make());
    for (const input of [{ x: { a: "1" } }, { x: { b: 2 } }, { x: { b: -1 } }, { x: { c: 1 } }, { x: 3 }]) {
      const [l, p] = [lazy.safeParse(input), plain.safeParse(input)];
      expect(l.success).toBe(p.success);
      expect(l.error?.issues).toEqual(p.error?.issues);
      expect(l.data).toEqual(p.data);
    }
  });

  it("the config's schema: defaults, strict keys and the errors users see are unchanged", () => {
    const defaults = configSchema.parse({});
    expect(defaults.model.name).toBe("gpt-4.1-mini");
    expect(defaults.hooks).toEqual({ import_claude: false });
    expect(defaults.keys).toEqual({});
    const bad = configSchema.safeParse({ model: { nmae: "x" }, keys: { quit: "ctrl+ctrl" }, mcp_servers: { s: { command: "" } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["model", "keys.quit", "mcp_servers.s.command"]));
  });
});
