/**
 * Text an agent controls reaches the review and permission documents: a file name it created (a
 * path may hold any byte but NUL and /) and a rule derived from its command (an "always" answer's
 * exact rule is the command as written). An escape sequence there would act on the terminal
 * (OSC 52 sets the clipboard, OSC 0 the title) instead of showing; the documents show it inert.
 */
import { describe, expect, it } from "vitest";
import { diffLines } from "../../src/ui/review-commands.js";
import { permissionsDoc } from "../../src/ui/docs.js";
import { diffVersions } from "../../src/review/file-diff.js";

const OSC52 = "\u001b]52;c;cm0gLXJmIH4K\u0007";
const hasControl = (text: string) => /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/.test(text);

describe("review and permission documents show agent-made names inert", () => {
  it("a diff's heading with an escape sequence in the file's path", () => {
    const path = `notes${OSC52}.txt`;
    for (const diff of [diffVersions(path, "created", null, Buffer.from("a\n")), diffVersions(path, "created", null, Buffer.from("a\0b"))]) {
      const lines = diffLines(diff);
      for (const line of lines) expect(hasControl(line.text)).toBe(false);
      expect(lines[0]!.text).toContain("notes");
    }
  });

  it("a rule in force whose command holds an escape sequence", () => {
    const lines = permissionsDoc([{ kind: "allow", rule: `bash(echo ${OSC52}hi)`, origin: "dialog (a1)", removable: true }]);
    for (const line of lines) expect(hasControl(line.text)).toBe(false);
    expect(lines.map((l) => l.text).join("\n")).toContain("echo");
  });
});
