// The design rules of the shared design (../shared/DESIGN.md, beside the checkout; "DESIGN §1" below)
// that a machine can check. `npm run lint`; CI runs it before the tests.
import tseslint from "typescript-eslint";

/**
 * The floors of src/, top to bottom. A folder may import its own floor and the floors below it,
 * never one above: the core (everything but ui/ and cli/) never reaches the dashboard or the
 * command line, and config/, events/, util/ import only each other.
 */
const FLOORS = [["cli"], ["ui"], ["orchestrator"], ["agent", "mcp", "skills", "hooks", "worktrees", "review"], ["tools"], ["model", "sessions"], ["config", "events", "util"]];

function floorRules() {
  return FLOORS.flatMap((floor, level) => {
    const above = FLOORS.slice(0, level).flat();
    if (above.length === 0) return [];
    // A relative import that climbs out of the folder into one of the floors above.
    const regex = `^(\\.\\./)+(${above.join("|")})(/|$)`;
    const message = `src/${floor.join(", src/")} may not import ${above.join(", ")}: imports only go down the floors (DESIGN §1).`;
    return [
      {
        name: `orca/floor-${floor.join("-")}`,
        files: floor.map((folder) => `src/${folder}/**/*.{ts,tsx}`),
        rules: {
          "no-restricted-imports": ["error", { patterns: [{ regex, message }] }],
          // The same for `await import("…")`, which no-restricted-imports does not see.
          "no-restricted-syntax": ["error", { selector: `ImportExpression[source.value=/${regex.replaceAll("/", "\\/")}/]`, message }],
        },
      },
    ];
  });
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "demo/**", "bin/**", "**/*.js", "**/*.mjs"] },
  {
    name: "orca/typescript",
    files: ["src/**/*.{ts,tsx}", "tests/**/*.{ts,tsx}", "bench/**/*.ts", "scripts/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      // A name nobody reads is a leftover of a change; `_name` says it is unused on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    name: "orca/promises",
    // Tests leave some promises pending on purpose (a permission request nobody answers).
    files: ["src/**/*.{ts,tsx}", "bench/**/*.ts", "scripts/**/*.ts"],
    rules: { "@typescript-eslint/no-floating-promises": "error" },
  },
  {
    name: "orca/file-size",
    files: ["src/**/*.{ts,tsx}"],
    // Physical lines, as `wc -l` counts them: a file that needs more is two jobs.
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  ...floorRules(),
);
