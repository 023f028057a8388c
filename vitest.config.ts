import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    setupFiles: ["tests/setup/terminal.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn servers and child processes; two cores cannot take many at once.
    maxWorkers: 2,
  },
});
