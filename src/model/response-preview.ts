/**
 * What a model endpoint actually sent, kept for the error message when its answer carried nothing
 * orca could parse (a 200 whose body is an HTML page, a JSON error, `{malformed json…`, or empty).
 * The SDK's event-stream parser silently skips lines that are not events, so without this the
 * only thing left to say would be "no finish_reason" — the wrong cause.
 */

const KEEP_BYTES = 200;
const SHOW_CHARS = 80;

export class ResponsePreview {
  private readonly head: Uint8Array[] = [];
  private kept = 0;
  /** Bytes of body seen so far. */
  bytes = 0;

  /**
   * `response` with its body passed through unchanged, its first bytes recorded here. The body is
   * read chunk by chunk as the SDK asks for it (a pull source) rather than piped through a
   * TransformStream: a pipe's setup and the reader it releases at the end (Node builds an Error
   * with a stack for that) cost more than the copy on every response.
   */
  tap(response: Response): Response {
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        this.record(value);
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private record(chunk: Uint8Array): void {
    this.bytes += chunk.byteLength;
    if (this.kept < KEEP_BYTES) {
      const part = chunk.subarray(0, KEEP_BYTES - this.kept);
      this.head.push(part.slice());
      this.kept += part.byteLength;
    }
  }

  /** The start of the body, quoted on one line (`"{malformed json: <<<chaos>>>"`), or "" if empty. */
  quoted(): string {
    if (this.bytes === 0) return "";
    const text = Buffer.concat(this.head).toString("utf8").trim();
    const cut = text.length > SHOW_CHARS || this.bytes > this.kept;
    return JSON.stringify(cut ? `${text.slice(0, SHOW_CHARS)}…` : text);
  }

  /** Whether the body looked like an event stream at all (its first line an SSE field or comment). */
  looksLikeEventStream(): boolean {
    const text = Buffer.concat(this.head).toString("utf8").trimStart();
    return /^(data|event|id|retry)?:/.test(text);
  }
}

/**
 * The wait before retrying an answer that carried nothing, as the SDK waits before retrying a
 * 5xx: 0.5 s doubling up to 8 s, less up to a quarter of jitter. `retry` counts from 0.
 */
export function retryDelayMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8_000) * (1 - Math.random() * 0.25);
}
