/**
 * An object — a zod schema — made the first time it is used instead of when its module loads.
 *
 * Building zod schemas was most of what importing orca's config, hook and agent modules cost (~25–45
 * ms of every start on Node 24, before the first request could leave), and a start that reads only
 * the package's own config and agents needs none of them: those were checked when the package was
 * built (util/package-snapshot.ts). A schema that is used is made at its first use, as it was made
 * before at import: nothing else changes.
 *
 * The value stands for what `make` returns: every property read (its methods are zod's closures over
 * the real schema), `in`, assignment and `instanceof` (zod's classes test an object's traits) reach
 * the real object. What it cannot do is pass as that object by identity: zod's registry (`.meta()`,
 * `.describe()` metadata, read by `z.toJSONSchema`) is keyed by the real schema, so a schema whose
 * description a model is shown (a tool's parameters) must not be one of these.
 */
export function builtOnUse<T extends object>(make: () => T): T {
  let made: T | undefined;
  const real = (): T => (made ??= make());
  return new Proxy(Object.create(null) as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/**
 * A function that makes its value the first time it is called and returns the same one after: for
 * a schema that must be the real object (a tool's parameters, see above) yet need not be built
 * when its module loads.
 */
export function madeOnFirstCall<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
