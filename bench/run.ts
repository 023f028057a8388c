/**
 * `npm run bench -- <name> [--json]`: runs one benchmark (or all with no name) and prints its table,
 * or one JSON object with --json. Each benchmark module exports `run({ json })`.
 */
const benches: Record<string, () => Promise<{ run(opts: { json: boolean }): Promise<void> }>> = {
  scheduler: () => import("./scheduler.js"),
  delegation: () => import("./delegation.js"),
  session: () => import("./session.js"),
  render: () => import("./render.js"),
  startup: () => import("./startup.js"),
  overhead: () => import("./overhead.js"),
  sandbox: () => import("./sandbox.js"),
  tokens: () => import("./tokens.js"),
  hooks: () => import("./hooks.js"),
  permissions: () => import("./permissions.js"),
  review: () => import("./review.js"),
  flow: () => import("./flow.js"),
  fanout: () => import("./fanout.js"),
  preconnect: () => import("./preconnect.js"),
  "mcp-start": () => import("./mcp-start.js"),
  step: () => import("./step.js"),
  "nested-repos": () => import("./nested-repos.js"),
  "write-loop": () => import("./write-loop.js"),
};

const args = process.argv.slice(2);
const json = args.includes("--json");
const names = args.filter((a) => !a.startsWith("--"));
const selected = names.length ? names : Object.keys(benches);
for (const name of selected) {
  const load = benches[name];
  if (!load) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(benches).join(", ")}`);
    process.exit(2);
  }
  if (!json) console.log(`\n## ${name}\n`);
  const mod = await load();
  await mod.run({ json });
}
