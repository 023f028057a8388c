import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../src/tools/shell/index.js";
import { runnerOfArgv, testCountsOf, testRunnerOf, testRunOf } from "../../src/review/test-runners.js";
import { ROOT } from "../fixtures/harness.js";

const sample = (name: string) => fs.readFileSync(path.join(ROOT, "tests", "fixtures", "test-output", name), "utf8");

beforeAll(async () => {
  await loadShellParser();
});

describe("the runner table: which commands run tests", () => {
  it.each([
    ["npm test", "npm test"],
    ["npm run test:unit -- --silent", "npm test"],
    ["npm t", "npm test"],
    ["pnpm test", "pnpm test"],
    ["pnpm run test", "pnpm test"],
    ["pnpm test:e2e", "pnpm test"],
    ["yarn test", "yarn test"],
    ["npx vitest run tests/unit/a.test.ts", "vitest"],
    ["npx -y vitest@3.2.0 run", "vitest"],
    ["pnpm exec jest --ci", "jest"],
    ["./node_modules/.bin/vitest run", "vitest"],
    ["vitest --run", "vitest"],
    ["jest src", "jest"],
    ["npx mocha 'test/**/*.spec.js'", "mocha"],
    ["nyc mocha", "mocha"],
    ["node --test", "node --test"],
    ["node --test --test-reporter=spec test/", "node --test"],
    ["pytest -q", "pytest"],
    ["python -m pytest tests/test_a.py", "pytest"],
    ["uv run pytest -x", "pytest"],
    ["poetry run pytest", "pytest"],
    ["python3 -m unittest discover", "unittest"],
    ["go test ./...", "go test"],
    ["cargo test --workspace", "cargo test"],
    ["cargo nextest run", "cargo test"],
    ["bun test", "bun test"],
    ["deno test -A", "deno test"],
    ["make test", "make test"],
    ["bundle exec rspec", "rspec"],
    ["./gradlew test", "gradle test"],
    ["mvn -q verify", "mvn test"],
    ["cd web && CI=1 npx vitest run", "vitest"],
    ["timeout 120 pytest", "pytest"],
    ["npm ci && npm test 2>&1 | tail -20", "npm test"],
    ["env FOO=1 go test -run TestX ./pkg", "go test"],
    ["sh -c 'cargo test'", "cargo test"],
  ])("%s → %s", (command, runner) => {
    expect(testRunnerOf(command)).toBe(runner);
  });

  it.each(["npm install", "npm run build", "npx tsc --noEmit", "go build ./...", "cargo build", "cat test.txt", "ls tests", "grep -r test src", "vitest bench", "node script.js", "python -m pip install pytest", "echo npm test", "git commit -m 'npm test'", "yarn add -D vitest", "pnpm install"])(
    "%s runs no tests",
    (command) => {
      expect(testRunnerOf(command)).toBeNull();
    },
  );

  it("reads a program's argv without the shell grammar too", () => {
    expect(runnerOfArgv(["npx", "--yes", "jest@29.7.0", "--ci"])).toBe("jest");
    expect(runnerOfArgv(["/usr/bin/python3.12", "-m", "pytest"])).toBe("pytest");
  });
});

describe("pass/fail counts, read from real output of each runner", () => {
  it.each([
    ["vitest", "vitest-fail.txt", { passed: 3, failed: 1, skipped: 1 }],
    ["vitest", "vitest-pass.txt", { passed: 1 }],
    ["jest", "jest-fail.txt", { passed: 3, failed: 1, skipped: 1 }],
    ["jest", "jest-pass.txt", { passed: 3, skipped: 1 }],
    ["mocha", "mocha-fail.txt", { passed: 2, failed: 1, skipped: 1 }],
    ["mocha", "mocha-pass.txt", { passed: 2, failed: 0, skipped: 1 }],
    // Node counts a test with subtests as a test too: 6 tests = 3 top-level + group + its 2 subtests.
    ["node --test", "node-test-fail.txt", { passed: 4, failed: 1, skipped: 1 }],
    ["node --test", "node-test-spec-fail.txt", { passed: 4, failed: 1, skipped: 1 }],
    ["node --test", "node-test-pass.txt", { passed: 4, failed: 0, skipped: 1 }],
    ["pytest", "pytest-fail.txt", { passed: 2, failed: 1, skipped: 1 }],
    ["pytest", "pytest-q-fail.txt", { passed: 2, failed: 1, skipped: 1 }],
    ["pytest", "pytest-pass.txt", { passed: 2, failed: 0, skipped: 1 }],
    ["unittest", "unittest-fail.txt", { passed: 1, failed: 2, skipped: 1 }],
    // The failing run stops before the doc tests; the passing one adds theirs.
    ["cargo test", "cargo-fail.txt", { passed: 1, failed: 1, skipped: 1 }],
    ["cargo test", "cargo-pass.txt", { passed: 2, failed: 0, skipped: 1 }],
    ["go test", "go-v-fail.txt", { passed: 4, failed: 1, skipped: 1 }],
    ["go test", "go-v-pass.txt", { passed: 4, failed: 0, skipped: 1 }],
    // Without -v go prints only the failures.
    ["go test", "go-fail.txt", { failed: 1 }],
  ] as const)("%s: %s", (runner, file, counts) => {
    expect(testCountsOf(runner, sample(file))).toEqual(counts);
  });

  it("go test without -v that passed prints no counts", () => {
    expect(testCountsOf("go test", sample("go-pass.txt"))).toBeNull();
  });

  it("a package script's counts come from whichever runner it called", () => {
    expect(testCountsOf("npm test", sample("vitest-fail.txt"))).toEqual({ passed: 3, failed: 1, skipped: 1 });
    expect(testCountsOf("pnpm test", sample("jest-fail.txt"))).toEqual({ passed: 3, failed: 1, skipped: 1 });
    expect(testCountsOf("yarn test", sample("mocha-fail.txt"))).toEqual({ passed: 2, failed: 1, skipped: 1 });
    expect(testCountsOf("npm test", sample("node-test-fail.txt"))).toEqual({ passed: 4, failed: 1, skipped: 1 });
  });

  it("output that is not a runner's summary gives no counts", () => {
    expect(testCountsOf("vitest", "error: cannot find module 'vitest'\n[exit code: 1]")).toBeNull();
    expect(testCountsOf("jest", sample("pytest-fail.txt"))).toBeNull();
    expect(testCountsOf("npm test", "> app@1.0.0 test\n> echo no tests\nno tests\n")).toBeNull();
    expect(testCountsOf("bun test", " 3 pass\n 0 fail\n")).toBeNull();
  });

  it("a run's record: its runner and counts, with the bash tool's exit line after the output", () => {
    expect(testRunOf("npx jest", `${sample("jest-fail.txt")}\n[exit code: 1]`)).toEqual({ runner: "jest", passed: 3, failed: 1, skipped: 1 });
    expect(testRunOf("ls", "a\nb")).toBeNull();
  });
});
