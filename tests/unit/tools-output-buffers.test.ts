import { describe, expect, it } from "vitest";
import { HeadTailBuffer, UnreadBuffer } from "../../src/tools/builtin/output.js";

describe("bounded output buffers", () => {
  it("HeadTailBuffer keeps the head and the tail and counts the middle", () => {
    const buffer = new HeadTailBuffer(4, 5);
    for (const chunk of ["ab", "cdef", "ghij", "kl", "mnop"]) buffer.push(chunk);
    // head "abcd"; of "efghijklmnop" the last 5 are kept and 7 dropped.
    expect(buffer.text()).toBe("abcd\n[… 7 characters of output not kept …]\nlmnop");
  });

  it("HeadTailBuffer returns everything when nothing was dropped", () => {
    const buffer = new HeadTailBuffer(4, 5);
    for (const chunk of ["abc", "defg", "hi"]) buffer.push(chunk);
    expect(buffer.text()).toBe("abcdefghi");
  });

  it("UnreadBuffer drops the oldest unread part and counts it per take", () => {
    const buffer = new UnreadBuffer(4);
    buffer.push("abc");
    buffer.push("defgh");
    expect(buffer.take()).toEqual({ text: "efgh", dropped: 4 });
    buffer.push("xy");
    expect(buffer.take()).toEqual({ text: "xy", dropped: 0 });
  });
});
