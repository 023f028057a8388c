import type { z } from "zod";
import { closest } from "../util/edit-distance.js";

/**
 * The keys a schema accepts at a dotted path of the input, for "did you mean": the object shape
 * reached by following the path through wrappers (optional, default, pipe), records and arrays
 * (whose key or index the path names), and every branch of a union.
 */
export function knownKeysAt(schema: z.core.$ZodType, pathInInput: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const shape of shapesAt(schema, pathInInput, 0)) for (const key of Object.keys(shape)) keys.add(key);
  return [...keys];
}

/** " (did you mean `name`?)" for a key one or two edits from a known one, else "". */
export function didYouMeanKey(schema: z.core.$ZodType, pathInInput: readonly PropertyKey[], key: string): string {
  const known = knownKeysAt(schema, pathInInput);
  // Short keys get one edit: "tls" is not a typo of "url".
  const match = closest(key, known, (candidate) => (candidate.length <= 4 ? 1 : 2));
  return match ? `; did you mean ${match}?` : "";
}

type Def = { type: string; shape?: Record<string, z.core.$ZodType>; innerType?: z.core.$ZodType; in?: z.core.$ZodType; valueType?: z.core.$ZodType; element?: z.core.$ZodType; options?: z.core.$ZodType[] };

function shapesAt(schema: z.core.$ZodType, at: readonly PropertyKey[], depth: number): Record<string, z.core.$ZodType>[] {
  if (depth > 32) return [];
  const def = schema._zod.def as unknown as Def;
  const next = (inner: z.core.$ZodType | undefined, rest: readonly PropertyKey[]) => (inner ? shapesAt(inner, rest, depth + 1) : []);
  switch (def.type) {
    case "object":
      if (at.length === 0) return def.shape ? [def.shape] : [];
      return next(def.shape?.[String(at[0])], at.slice(1));
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
      return next(def.innerType, at);
    case "pipe":
      return next(def.in, at);
    case "record":
      return at.length ? next(def.valueType, at.slice(1)) : [];
    case "array":
      return at.length ? next(def.element, at.slice(1)) : [];
    case "union":
      return (def.options ?? []).flatMap((option) => next(option, at));
    default:
      return [];
  }
}
