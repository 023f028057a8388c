import { describe, expect, it } from "vitest";
import type { AgentChangeSet, FileChange } from "../../src/review/change-set.js";
import type { FileDiff } from "../../src/review/file-diff.js";
import { agentKey, buildRows, fileKey, markOf, nearest, NO_MARKS, rowOf, scrollTo, sendPlan, setComment, step, toggleMark, type DiffSlot, type ReviewRow } from "../../src/ui/review-model.js";

const file = (path: string): FileChange => ({ path, status: "modified", before: "a", after: "b", tools: ["edit_file"], changes: 1, firstAt: 0, lastAt: 0 });
const agent = (agentId: string, paths: string[]): AgentChangeSet => ({ agentId, name: "editor", task: "t", startedAt: 0, files: paths.map(file) });
const diff = (path: string, hunks: number): FileDiff => ({
  path,
  status: "modified",
  text: "x",
  binary: false,
  hunks: Array.from({ length: hunks }, (_, index) => ({ index, oldStart: 1 + index * 10, oldLines: 1, newStart: 1 + index * 10, newLines: 1, lines: [`-old ${index}`, `+new ${index}`] })),
});

const agents = [agent("editor-1", ["a.js", "b.js"]), agent("editor-2", ["c.js"])];
const diffs = new Map<string, DiffSlot>([
  [fileKey("editor-1", "a.js"), diff("a.js", 2)],
  [fileKey("editor-1", "b.js"), "loading"],
  [fileKey("editor-2", "c.js"), diff("c.js", 1)],
]);
const rows = buildRows({ agents, diffs, folded: new Set(), held: new Set(), overlaps: new Map() });
const kinds = (r: readonly ReviewRow[]) => r.map((x) => (x.kind === "line" ? `line:${x.text}` : x.kind === "hunk" ? `hunk:${x.hunk}` : `${x.kind}:${x.text.split(" ")[x.kind === "agent" ? 0 : 1]}`));

describe("the review view's rows", () => {
  it("agent → file → hunk → lines; a file still loading is one line", () => {
    expect(kinds(rows)).toEqual([
      "agent:editor-1",
      "file:a.js",
      "hunk:0",
      "line:-old 0",
      "line:+new 0",
      "hunk:1",
      "line:-old 1",
      "line:+new 1",
      "file:b.js",
      "line:… loading the diff",
      "agent:editor-2",
      "file:c.js",
      "hunk:0",
      "line:-old 0",
      "line:+new 0",
    ]);
  });

  it("warns on a file another agent changed after this one: the diff to now holds their change too", () => {
    const later = { ...agent("editor-3", ["a.js"]) };
    later.files[0] = { ...later.files[0]!, lastAt: 5 };
    const warned = buildRows({ agents, diffs, folded: new Set(), held: new Set(), overlaps: new Map(), all: [...agents, later] });
    expect(kinds(warned).slice(0, 3)).toEqual(["agent:editor-1", "file:a.js", "line:⚠ changed after it by editor-3: this diff runs to the file now, so it holds their change too"]);
  });

  it("a folded file keeps only its row", () => {
    const folded = buildRows({ agents, diffs, folded: new Set([fileKey("editor-1", "a.js")]), held: new Set(), overlaps: new Map() });
    expect(kinds(folded).slice(0, 3)).toEqual(["agent:editor-1", "file:a.js", "file:b.js"]);
  });

  it("moves skip diff lines; file moves skip hunks; pages land on an acting row", () => {
    expect(step(rows, 0, 1)).toBe(1);
    expect(step(rows, 2, 1)).toBe(5);
    expect(step(rows, 5, 1)).toBe(8);
    expect(step(rows, 2, 1, true)).toBe(8);
    expect(step(rows, 14, 1)).toBe(14);
    expect(nearest(rows, 3)).toBe(5);
    expect(nearest(rows, 14)).toBe(12);
    expect(rowOf(rows, agentKey("editor-2"))).toBe(10);
    expect(rowOf(rows, "nope")).toBe(0);
  });

  it("keeps the cursor on screen, moving the window as little as it can", () => {
    expect(scrollTo(0, 5, 10, 100)).toBe(0);
    expect(scrollTo(0, 12, 10, 100)).toBe(3);
    expect(scrollTo(20, 12, 10, 100)).toBe(12);
    expect(scrollTo(95, 99, 10, 100)).toBe(90);
  });
});

describe("marks and what sending them asks", () => {
  const hunk1 = rows[5]!;
  const fileA = rows[1]!;
  const agent2 = rows[10]!;

  it("a rejected hunk with a comment: that hunk, with the comment; nothing for untouched files", () => {
    let m = toggleMark(NO_MARKS, hunk1, "reject");
    m = setComment(m, (hunk1 as { key: string }).key, "keep it\nas it was");
    expect(sendPlan(agents, m)).toEqual([{ agentId: "editor-1", items: [{ file: agents[0]!.files[0], hunks: [1], comment: "hunk 2: keep it as it was" }] }]);
  });

  it("a file's mark replaces its hunks'; a hunk's mark takes over from its file's; again unmarks", () => {
    let m = toggleMark(NO_MARKS, hunk1, "reject");
    m = toggleMark(m, fileA, "accept");
    expect(markOf(m, hunk1)).toBe("accept");
    expect(sendPlan(agents, m)[0]!.items[0]).toMatchObject({ hunks: [], accepted: "all" });
    m = toggleMark(m, hunk1, "reject");
    expect(markOf(m, fileA)).toBeUndefined();
    expect(markOf(m, hunk1)).toBe("reject");
    m = toggleMark(m, hunk1, "reject");
    expect(sendPlan(agents, m)).toEqual([]);
  });

  it("rejecting an agent rejects each of its files whole; its comment goes with them", () => {
    let m = toggleMark(NO_MARKS, agent2, "reject");
    m = setComment(m, agentKey("editor-2"), "start over");
    expect(sendPlan(agents, m)).toEqual([{ agentId: "editor-2", items: [{ file: agents[1]!.files[0], hunks: "all" }], comment: "start over" }]);
    expect(markOf(m, rows[12]!)).toBe("reject");
  });
});
