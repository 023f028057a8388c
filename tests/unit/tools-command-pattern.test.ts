import { describe, expect, it } from "vitest";
import { DEFAULT_READ_ONLY_COMMANDS } from "../../src/config/schema.js";
import { isReadOnlyCommand, matchesCommand } from "../../src/tools/command-pattern.js";

describe("read-only command classification", () => {
  const ro = (c: string) => isReadOnlyCommand(c, DEFAULT_READ_ONLY_COMMANDS);

  it("accepts plain reads", () => {
    for (const c of ["git status", "git diff HEAD~1 -- src", "ls -la", "cat src/a.ts", "rg -n foo src", "find . -name '*.ts'", "grep -rn x ."]) {
      expect(ro(c), c).toBe(true);
    }
  });

  it("refuses chaining, redirection, substitution and options that write or execute", () => {
    for (const c of [
      "ls && rm -rf x",
      "cat a > b",
      "cat $(echo a)",
      "find . -name '*.txt' -delete",
      "find src -type f -exec rm -f {} +",
      "find . -fprint out.txt",
      "tree -o out.txt",
      "git diff --output=patch.txt",
      "git log --ext-diff",
      "rg --pre sh x",
      "sort -o x y",
    ]) {
      expect(ro(c), c).toBe(false);
    }
  });

  it("permission-style matching still sees through options (only the read-only check refuses them)", () => {
    expect(matchesCommand("git diff --output=x", ["git diff*"])).toBe(true);
  });
});
