/**
 * Bounded buffers for command output, so a command printing gigabytes cannot exhaust memory.
 * Sizes are in UTF-16 code units (string length), which is all the bound needs.
 */

/** Keeps the first and the last part of a stream; the middle is counted, not kept. */
export class HeadTailBuffer {
  private head = "";
  private tailChunks: string[] = [];
  private tailLength = 0;
  private dropped = 0;

  constructor(
    private readonly headMax = 512 * 1024,
    private readonly tailMax = 512 * 1024,
  ) {}

  push(chunk: string): void {
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (chunk === "") return;
    }
    this.tailChunks.push(chunk);
    this.tailLength += chunk.length;
    while (this.tailLength > this.tailMax) {
      const excess = this.tailLength - this.tailMax;
      const first = this.tailChunks[0];
      if (first.length <= excess) {
        this.tailChunks.shift();
        this.tailLength -= first.length;
        this.dropped += first.length;
      } else {
        this.tailChunks[0] = first.slice(excess);
        this.tailLength -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Everything kept, with a marker where output was dropped. */
  text(): string {
    const tail = this.tailChunks.join("");
    if (this.dropped === 0) return this.head + tail;
    return `${this.head}\n[… ${this.dropped} characters of output not kept …]\n${tail}`;
  }
}

/** Output not yet read, bounded by dropping the oldest unread part. */
export class UnreadBuffer {
  private chunks: string[] = [];
  private length = 0;
  private dropped = 0;

  constructor(private readonly max = 1024 * 1024) {}

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length > this.max) {
      const excess = this.length - this.max;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.length -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.slice(excess);
        this.length -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Takes everything unread; `dropped` counts characters lost since the previous take. */
  take(): { text: string; dropped: number } {
    const result = { text: this.chunks.join(""), dropped: this.dropped };
    this.chunks = [];
    this.length = 0;
    this.dropped = 0;
    return result;
  }
}
