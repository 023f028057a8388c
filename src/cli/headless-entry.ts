import { parseCli } from "./args.js";

export { main } from "./main.js";

/**
 * The entry of the headless bundle (scripts/bundle-options.mjs, headlessBundleOptions), which
 * bin/orca.js runs on Node 20 instead of the chunks: whether `argv` is a run it may take — a `-p`
 * run, read by the same parser main() reads it with. Anything else (a subcommand, the dashboard, a
 * line main() refuses) goes to the chunks, which say what main() says there.
 */
export function headlessRun(argv: string[]): boolean {
  try {
    const args = parseCli(argv);
    return args.print && !args.subcommand && !args.demo;
  } catch {
    return false;
  }
}
