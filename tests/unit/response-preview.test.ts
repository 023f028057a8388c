import { describe, expect, it } from "vitest";
import { ResponsePreview } from "../../src/model/response-preview.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A body that hands out `chunks` one read at a time and says whether it was cancelled, and why. */
function source(chunks: string[]): { stream: ReadableStream<Uint8Array>; cancelled: () => unknown } {
  let reason: unknown = "not cancelled";
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (i < chunks.length) controller.enqueue(bytes(chunks[i++]!));
      else controller.close();
    },
    cancel: (why) => {
      reason = why;
    },
  });
  return { stream, cancelled: () => reason };
}

describe("ResponsePreview.tap", () => {
  it("passes the body through unchanged while it records its first bytes", async () => {
    const chunks = ['data: {"id":1}\n\n', "x".repeat(300), "data: [DONE]\n\n"];
    const preview = new ResponsePreview();
    const tapped = preview.tap(new Response(source(chunks).stream, { status: 200, headers: { "content-type": "text/event-stream" } }));
    expect(tapped.status).toBe(200);
    expect(tapped.headers.get("content-type")).toBe("text/event-stream");
    expect(await tapped.text()).toBe(chunks.join(""));
    expect(preview.bytes).toBe(chunks.join("").length);
    expect(preview.looksLikeEventStream()).toBe(true);
    expect(preview.quoted()).toBe(JSON.stringify(`${(chunks[0]! + chunks[1]!).trim().slice(0, 80)}…`));
  });

  it("hands a cancel of the tapped body to the original one", async () => {
    const { stream, cancelled } = source(["a", "b", "c"]);
    const tapped = new ResponsePreview().tap(new Response(stream));
    const reader = tapped.body!.getReader();
    expect((await reader.read()).value).toEqual(bytes("a"));
    await reader.cancel("the user pressed Esc");
    expect(cancelled()).toBe("the user pressed Esc");
  });
});
