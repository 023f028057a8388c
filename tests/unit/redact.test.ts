import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/events/redact.js";

const KEY = "sk-proj-Zq81xKe02LmPa7RtY4vN";

function redactor(...secrets: string[]): Redactor {
  const r = new Redactor();
  for (const s of secrets) r.add(s);
  return r;
}

/** How the event log sees a tool's output: inside a JSON string. */
const asJson = (text: string) => JSON.stringify({ type: "tool_finished", content: text });

describe("Redactor", () => {
  it("redacts a secret whole, plain and JSON-escaped", () => {
    const r = redactor(KEY, 'pa"ss\\word-123456');
    expect(r.redactJson(asJson(`key=${KEY}.`))).toBe(asJson("key=[redacted]."));
    expect(r.redactJson(asJson('x pa"ss\\word-123456 y'))).toBe(asJson("x [redacted] y"));
  });

  it("redacts a key split by grep's colour codes", () => {
    const coloured = `OPENAI_API_KEY=\u001b[01;31m\u001b[K${KEY.slice(0, 5)}\u001b[m\u001b[K${KEY.slice(5, 12)}\u001b[01;31m${KEY.slice(12)}\u001b[m`;
    const out = redactor(KEY).redactJson(asJson(coloured));
    expect(out).toBe(asJson("OPENAI_API_KEY=\u001b[01;31m\u001b[K[redacted]\u001b[m"));
    for (let i = 0; i + 5 <= KEY.length; i++) expect(out).not.toContain(KEY.slice(i, i + 5));
  });

  it("redacts any piece of 8 or more characters of a key, and leaves shorter ones", () => {
    const r = redactor(KEY);
    const pieces = `${KEY.slice(0, 10)}\n${KEY.slice(10, 20)}\n${KEY.slice(20)}`;
    expect(r.redactJson(asJson(`a ${KEY.slice(3, 11)} b`))).toBe(asJson("a [redacted] b"));
    expect(r.redactJson(asJson(pieces))).toBe(asJson("[redacted]\n[redacted]\n[redacted]"));
    // Seven characters in a row are not enough to tell a key's piece from ordinary text.
    expect(r.redactJson(asJson(`a ${KEY.slice(3, 10)} b`))).toBe(asJson(`a ${KEY.slice(3, 10)} b`));
  });

  it("redacts paths and phrases only whole, so their common pieces stay readable", () => {
    const r = redactor("/home/alice/.config/credentials.json", "correct horse battery");
    const line = asJson("cd /home/alice/project && echo correct horse");
    expect(r.redactJson(line)).toBe(line);
    expect(r.redactJson(asJson("GOOGLE=/home/alice/.config/credentials.json"))).toBe(asJson("GOOGLE=[redacted]"));
  });

  it("leaves a line without secrets untouched, colour codes included", () => {
    const line = asJson("\u001b[32mok\u001b[0m all 12345678 tests passed");
    expect(redactor(KEY).redactJson(line)).toBe(line);
    expect(new Redactor().redactJson(line)).toBe(line);
  });
});
