/**
 * Wrappers as data (issue 26): every entry of the table of programs that run another command is
 * unwrapped with its own example, and a `bash(rm *)` rule meets the `rm` inside; spellings that
 * hide what runs are uncertain instead.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { broadMatch, compileCommandPattern } from "../../src/tools/command-match.js";
import { analyseCommand, loadShellParser } from "../../src/tools/shell/index.js";
import { WRAPPERS } from "../../src/tools/shell/wrapper-table.js";

beforeAll(() => loadShellParser());

const rm = compileCommandPattern("rm *");
const runsRm = (command: string) => analyseCommand(command).commands.some((c) => c.runs.some((r) => r.argv.join(" ") === "rm f"));

describe("the wrapper table", () => {
  it.each(Object.entries(WRAPPERS))("%s: its example runs rm f, certainly, and a bash(rm *) rule meets it", (name, spec) => {
    expect(spec.example.split(" ")[0]).toBe(name);
    const analysis = analyseCommand(spec.example);
    expect(analysis.uncertain).toEqual([]);
    expect(runsRm(spec.example)).toBe(true);
    expect(broadMatch(rm, spec.example, analysis)).toBe("yes");
  });

  it("the issue's spellings all meet the rule", () => {
    for (const c of ["prlimit --cpu=5 rm f", "strace -f -e trace=file rm f", "su - root -c 'rm f'", "runuser -u nobody -- rm f", "flock lockfile rm f", "taskset 1 rm f", "script -qc 'rm f' /dev/null", "chrt -o 0 rm f", "unshare -r rm f", "tar --to-command='rm f' -xf a.tar", "tar -I 'rm f' -xf a.tar", "flock -c 'rm f' lockfile", "tar --checkpoint-action=exec='rm f' -cf a.tar .", "sudo taskset 1 nice flock l rm f"]) {
      expect(broadMatch(rm, c, analyseCommand(c)), c).toBe("yes");
    }
  });

  it("what hides the command is uncertain: a shell reading its input, code only known at run time, old-style tar letters", () => {
    for (const c of ["script -q /dev/null", "unshare -r", 'flock l -c "$X"', "tar xIf prog a.tar", "chrt -o 0 $CMD f", "setarch x86_64 -R rm f", "sg wheel 'rm f'", "su root", "nsenter -t 1 -m", "strace -f --seccomp-bpf rm f"]) {
      expect(analyseCommand(c).uncertain.length, c).toBeGreaterThan(0);
    }
  });

  it("ordinary uses stay certain and run nothing hidden", () => {
    for (const c of ["tar -xzf a.tar.gz", "tar -cf a.tar src", "taskset -p 1234"]) expect(analyseCommand(c).uncertain, c).toEqual([]);
  });
});
