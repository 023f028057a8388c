import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_READ_ONLY_COMMANDS } from "../../src/config/schema.js";
import { broadMatch, compileCommandPattern, strictMatch } from "../../src/tools/command-match.js";
import { isReadOnlyCommand } from "../../src/tools/command-pattern.js";
import { analyseCommand, loadShellParser } from "../../src/tools/shell/index.js";

beforeAll(() => loadShellParser());

describe("the read-only hint (fails closed)", () => {
  const ro = (c: string) => isReadOnlyCommand(c, DEFAULT_READ_ONLY_COMMANDS);

  it("accepts plain reads", () => {
    for (const c of [
      "git status",
      "git diff HEAD~1 -- src",
      "git log -5 --oneline",
      "ls -la",
      "cat src/a.ts",
      "rg -n foo src",
      "find . -name '*.ts'",
      "grep -rn x .",
      "git status --short 2>&1",
      "cat a.txt | wc -l",
      "head -n 5 x && tail -n 5 x",
    ]) {
      expect(ro(c), c).toBe(true);
    }
  });

  it("refuses chaining into writers, redirection, substitution and options that write or execute, however spelled", () => {
    for (const c of [
      "ls && rm -rf x",
      "cat a > b",
      "cat $(echo a)",
      "cat `echo a`",
      "find . -name '*.txt' -delete",
      "find src -type f -exec rm -f {} +",
      "find . -maxdepth 0 '-exec' touch X {} +",
      "find . -maxdepth 0 \\-exec touch X {} +",
      "find . -maxdepth 0 -ex'ec' touch X {} +",
      "find . -fprint out.txt",
      "tree -o out.txt",
      "git diff --output=patch.txt",
      "git log -1 '--output=X'",
      "git log -1 --out\\put=X",
      "git difftool -y -x 'touch X'",
      "git log --ext-diff",
      "git -c core.pager=sh log",
      "git branch new-branch",
      "rg --pre sh x",
      "sort -o x y",
      "GIT_EXTERNAL_DIFF=./x git diff",
      "ls; x=1",
      "{ ls; }",
      "ls\\\n -la",
    ]) {
      expect(ro(c), c).toBe(false);
    }
  });

  it("fails closed on a writing-capable command: quoted or =-joined options and unknown ones mean 'may write'", () => {
    expect(ro("git log --format=%h")).toBe(false);
    expect(ro("git log '-n' 3")).toBe(false);
    expect(ro("find . -newer x -fls y")).toBe(false);
    expect(ro("sort --compress-program=sh x")).toBe(false);
    // A quoted operand is not an option: still read-only.
    expect(ro("find . -name '*.md'")).toBe(true);
  });

  it("never calls a command read-only because a config lists `*`", () => {
    for (const c of ["rm -rf x", "sed -i s/a/b/ f", "xargs rm", "python3 -c 'open(\"x\",\"w\")'", "tee x", "bash -c ls", "node x.js"]) {
      expect(isReadOnlyCommand(c, ["*"]), c).toBe(false);
    }
    expect(isReadOnlyCommand("sed -n 1p f", ["*"])).toBe(false);
  });
});

describe("command patterns", () => {
  const strict = (pattern: string, command: string) => {
    const a = analyseCommand(command);
    const words = a.commands[0]!.words.map((w) => w.value!);
    return strictMatch(compileCommandPattern(pattern), words);
  };

  it("strictly: `*` stays within one word and never stands for an option", () => {
    expect(strict("git diff *", "git diff")).toBe(true);
    expect(strict("git diff *", "git diff HEAD~1 src/a.ts")).toBe(true);
    expect(strict("git diff *", "git diff --output=F")).toBe(false);
    expect(strict("git diff *", "git difftool -y")).toBe(false);
    expect(strict("node *timeline.mjs*", "node --import data:text/javascript,x /s/timeline.mjs --help")).toBe(false);
    expect(strict("node *timeline.mjs*", "node /s/timeline.mjs")).toBe(true);
    expect(strictMatch(compileCommandPattern("node ${SKILL_DIR}/x.mjs *", { SKILL_DIR: "/my skills/s" }), ["node", "/my skills/s/x.mjs", "log.txt"])).toBe(true);
    expect(strict("git log --max=* *", "git log --max=3 a")).toBe(true);
  });

  it("broadly: the command however it is spelled, wherever it runs", () => {
    const rm = compileCommandPattern("rm *");
    for (const c of [
      "/bin/rm f",
      "/usr/bin/rm f",
      "\\rm f",
      "r\\m f",
      "'rm' f",
      '"r"m f',
      "$'\\x72m' f",
      "sh -c 'rm f'",
      'bash -c "bash -c \'rm f\'"',
      "echo f | xargs rm",
      "echo f | xargs -0 -n1 rm",
      "nice rm f",
      "nice -n 5 rm f",
      "nohup rm f",
      "timeout 5 rm f",
      "env -i A=1 rm f",
      "command rm f",
      "exec rm f",
      "time rm f",
      "stdbuf -oL rm f",
      "sudo -u root rm f",
      "{ rm f; }",
      "(rm f)",
      "if true; then rm f; fi",
      "while false; do rm f; done",
      "for x in a; do rm $x; done",
      "case a in a) rm f;; esac",
      "f() { rm f; }",
      "echo $(rm f)",
      "echo `rm f`",
      "cat <(rm f)",
      "find . -exec rm {} +",
      "eval 'rm f'",
      "ls && rm f",
      "true || rm f",
      "ls | rm f",
    ]) {
      expect(broadMatch(rm, c, analyseCommand(c)), c).toBe("yes");
    }
    expect(broadMatch(rm, "echo rm f", analyseCommand("echo rm f"))).toBe("no");
    const push = compileCommandPattern("git push *");
    for (const c of ["git push", "git -C repo push origin", "git --no-pager push -f", "/usr/bin/git push", "git --git-dir .git push"]) expect(broadMatch(push, c, analyseCommand(c)), c).toBe("yes");
    expect(analyseCommand("git -c alias.st='!rm f' st").uncertain).toEqual(["git -c can make git run commands"]);
    expect(broadMatch(rm, "command -v rm", analyseCommand("command -v rm"))).toBe("no");
  });

  it("knows when it cannot tell: a name only known at run time, code read from input or a file, eval of a variable", () => {
    for (const c of ["$X f", "$(echo rm) f", "echo 'rm f' | sh", "bash script.sh", "source x.sh", ". ./x.sh", "eval \"$CMD\"", "x='a[$(rm f)]'; echo $((x))", "/bin/r? f", "r{m,} f", "nice --foo rm f", "env -S 'rm f'", "echo 'unterminated"]) {
      expect(analyseCommand(c).uncertain.length, c).toBeGreaterThan(0);
    }
    expect(broadMatch(compileCommandPattern("rm -rf *"), "rm $FLAGS /", analyseCommand("rm $FLAGS /"))).toBe("unsure");
  });
});
