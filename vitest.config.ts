import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    setupFiles: ["tests/setup/terminal.ts"],
    // A hang guard, not a speed check: a test that runs the bin five times in a row needs the room
    // on two busy cores (the suite must pass with two CPU burners beside it, issue #13).
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn servers and child processes; two cores cannot take many at once.
    maxWorkers: 2,
  },
});
