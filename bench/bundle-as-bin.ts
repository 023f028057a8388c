import path from "node:path";

/**
 * Bundles a bench's file as the bin is bundled (scripts/bundle-options.mjs) into `dir`, as
 * `<name>.mjs`, and returns its path: what runs then loads its code the way orca does. esbuild is
 * imported here, on use, so a bundle that holds this module does not load it.
 */
export async function bundleAsBin(name: string, entry: string, dir: string): Promise<string> {
  const { build } = await import("esbuild");
  const { bundleOptions } = await import("../scripts/bundle-options.mjs");
  await build({ ...bundleOptions({ [name]: entry }, dir), outExtension: { ".js": ".mjs" } });
  return path.join(dir, `${name}.mjs`);
}
