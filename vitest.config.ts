import { defineConfig } from "vitest/config";

/** Unit tests that read what `npm run build` writes (the package snapshot, a compiled module). */
const UNIT_TESTS_OF_THE_BUILD = ["tests/unit/package-snapshot.test.ts", "tests/unit/heap-size.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["tests/setup/terminal.ts"],
    // A hang guard, not a speed check: a test that runs the bin five times in a row needs the room
    // on two busy cores (the suite must pass with two CPU burners beside it, issue #13).
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn servers and child processes; two cores cannot take many at once.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts", "tests/unit/**/*.test.tsx"], exclude: UNIT_TESTS_OF_THE_BUILD },
      },
      {
        // Tests that run the built bin: a missing or stale dist/ is rebuilt before they start.
        extends: true,
        test: {
          name: "built",
          include: ["tests/integration/**/*.test.ts", "tests/e2e/**/*.test.ts", ...UNIT_TESTS_OF_THE_BUILD],
          globalSetup: ["tests/setup/build.ts"],
        },
      },
    ],
  },
});
