import { describe, expect, it } from "vitest";
import { diffVersions, withoutHunks } from "../../src/review/file-diff.js";

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join("\n") + "\n";

describe("diffs past their bounds are listed, not computed", () => {
  it("a file over 1 MiB gets no diff and says why", () => {
    const before = Buffer.from(lines(80_000, "old"));
    const after = Buffer.from(lines(80_000, "new"));
    expect(before.length).toBeGreaterThan(1024 * 1024);
    const diff = diffVersions("big.txt", "modified", before, after);
    expect(diff.hunks).toEqual([]);
    expect(diff.unavailable).toMatch(/too large to diff/);
    expect(withoutHunks("big.txt", before.toString(), after.toString(), [0])).toBeNull();
  });

  it("a small file rewritten on more lines than the edit bound gets no diff; a few changed lines still do", () => {
    const before = Buffer.from(lines(5_000, "old"));
    const rewritten = Buffer.from(lines(5_000, "new"));
    expect(diffVersions("a.txt", "modified", before, rewritten).unavailable).toMatch(/changed lines/);
    const edited = Buffer.from(before.toString().replace("old line 7\n", "NEW line 7\n"));
    const diff = diffVersions("a.txt", "modified", before, edited);
    expect(diff.unavailable).toBeUndefined();
    expect(diff.hunks).toHaveLength(1);
    expect(diff.text).toContain("+NEW line 7");
  });
});
