import { describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.js";
import { HELP, OPTIONS, UsageError } from "../../src/cli/usage.js";
import { checkBaseUrl } from "../../src/config/base-url.js";
import { editDistance } from "../../src/util/edit-distance.js";

function usageErrorOf(argv: string[]): UsageError {
  try {
    parseCli(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`parseCli(${JSON.stringify(argv)}) did not fail`);
}

describe("parseCli", () => {
  it("--resume takes one word right after it as the id, never a prompt of several words", () => {
    expect(parseCli(["-p", "finish the job", "--resume", "abc123"])).toMatchObject({ prompt: "finish the job", resume: "abc123" });
    expect(parseCli(["--resume", "abc123", "-p", "finish the job"])).toMatchObject({ prompt: "finish the job", resume: "abc123" });
    expect(parseCli(["-p", "--resume", "abc123", "finish", "the", "job"])).toMatchObject({ prompt: "finish the job", resume: "abc123" });
    expect(parseCli(["--resume=abc123", "finish"])).toMatchObject({ prompt: "finish", resume: "abc123" });
    expect(parseCli(["-p", "--resume", "finish the job"])).toMatchObject({ prompt: "finish the job", resume: true });
    expect(parseCli(["--resume", "-p", "go"])).toMatchObject({ prompt: "go", resume: true });
    expect(parseCli(["--resume"])).toMatchObject({ prompt: undefined, resume: true });
    // After --, everything is the prompt.
    expect(parseCli(["--resume", "--", "sessions"])).toMatchObject({ prompt: "sessions", resume: true, subcommand: undefined });
  });

  it("commands, near misses and forced prompts", () => {
    expect(parseCli(["sessions", "--all"])).toMatchObject({ subcommand: "sessions", all: true, prompt: undefined });
    expect(parseCli(["sessions", "--reap"])).toMatchObject({ subcommand: "sessions", reap: true, all: false });
    expect(() => parseCli(["-p", "hi", "--reap"])).toThrow("--reap only applies to orca sessions");
    expect(parseCli(["--", "sesions"])).toMatchObject({ subcommand: undefined, prompt: "sesions" });
    expect(usageErrorOf(["sesions"]).message).toBe('unknown command "sesions": did you mean `orca sessions`? (to send it as a prompt: orca -- sesions)');
    expect(usageErrorOf(["HOOK"]).message).toContain("`orca hooks`");
    expect(usageErrorOf(["tols"]).message).toContain("`orca tools`");
    // Far from every command, or more than one word: a prompt.
    expect(parseCli(["fix"]).prompt).toBe("fix");
    expect(parseCli(["hello"]).prompt).toBe("hello");
    expect(parseCli(["look", "at", "the", "hooks"]).prompt).toBe("look at the hooks");
    expect(parseCli(["sesions please"]).prompt).toBe("sesions please");
  });

  it("option values: dash-led numbers are values, options are not", () => {
    expect(usageErrorOf(["--max-steps", "-3"]).message).toBe('--max-steps "-3" is not valid: give a whole number, 1 or more');
    expect(usageErrorOf(["--max-steps", "0"]).message).toContain('"0" is not valid');
    expect(usageErrorOf(["--max-steps", "1e3"]).message).toContain('"1e3" is not valid');
    expect(parseCli(["--max-steps", "7"]).maxSteps).toBe(7);
    expect(usageErrorOf(["--max-steps=-3"]).message).toContain('"-3" is not valid');
    expect(usageErrorOf(["-w", "--yes"]).message).toBe('--workspace needs a value (DIR), and "--yes" is an option');
    expect(usageErrorOf(["-m", "-qq"]).message).toContain('write --model=-qq if "-qq" is the value');
    expect(parseCli(["--model=-weird"]).model).toBe("-weird");
    expect(usageErrorOf(["--yes=no"]).message).toBe('--yes takes no value (got "no")');
  });

  it("usage under an error names the option it is about", () => {
    const error = usageErrorOf(["--permission-mode", "yolo"]);
    expect(error.usage.join("\n")).toContain("--permission-mode MODE");
    expect(error.usage.some((l) => l.startsWith("orca:"))).toBe(false);
  });

  it("--help lists every option of the table the parser reads", () => {
    for (const o of OPTIONS) expect(HELP).toContain(`--${o.name}`);
  });
});

describe("checkBaseUrl", () => {
  it("accepts endpoints, names what is wrong with the rest", () => {
    expect(checkBaseUrl("http://localhost:11434/v1")).toBeNull();
    expect(checkBaseUrl("https://api.openai.com/v1")).toBeNull();
    expect(checkBaseUrl("http://[::1]:8080/v1")).toBeNull();
    // fetch refuses these ports outright: retrying them four times only delays the same failure.
    for (const port of [9, 6000, 10080]) expect(checkBaseUrl(`http://127.0.0.1:${port}/v1`)?.problem).toMatch(/fetch refuses/);
    expect(checkBaseUrl("http://127.0.0.1:10081/v1")).toBeNull();
    expect(checkBaseUrl("localhost:11434")).toEqual({ problem: "has no scheme (http:// or https://)", suggestion: "http://localhost:11434/v1" });
    expect(checkBaseUrl("api.example.com/v1")?.suggestion).toBe("https://api.example.com/v1");
    expect(checkBaseUrl("127.0.0.1:8000/v1")?.suggestion).toBe("http://127.0.0.1:8000/v1");
    expect(checkBaseUrl("ws://host/v1")?.problem).toContain("ws://");
    expect(checkBaseUrl("http://host:0/v1")?.problem).toContain("port 0");
    expect(checkBaseUrl("http://host:abc/v1")?.problem).toContain('port "abc"');
    expect(checkBaseUrl("not a url")?.problem).toContain("not a URL");
  });
});

describe("editDistance", () => {
  it("counts a swap of neighbours as one edit", () => {
    expect(editDistance("mpc", "mcp")).toBe(1);
    expect(editDistance("sesions", "sessions")).toBe(1);
    expect(editDistance("look", "hooks")).toBe(2);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });
});
