/**
 * Bounded buffers for command output, so a command printing gigabytes cannot exhaust memory.
 * Sizes are in UTF-16 code units (string length), which is all the bound needs.
 */

/** The last `max` characters of a stream; what came before them is counted in `dropped`, not kept. */
class BoundedTail {
  private chunks: string[] = [];
  private length = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

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

  text(): string {
    return this.chunks.join("");
  }
}

/** Keeps the first and the last part of a stream; the middle is counted, not kept. */
export class HeadTailBuffer {
  private head = "";
  private readonly tail: BoundedTail;

  constructor(
    private readonly headMax = 512 * 1024,
    tailMax = 512 * 1024,
  ) {
    this.tail = new BoundedTail(tailMax);
  }

  push(chunk: string): void {
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (chunk === "") return;
    }
    this.tail.push(chunk);
  }

  /** Everything kept, with a marker where output was dropped. */
  text(): string {
    const tail = this.tail.text();
    if (this.tail.dropped === 0) return this.head + tail;
    return `${this.head}\n[… ${this.tail.dropped} characters of output not kept …]\n${tail}`;
  }
}

/** Output not yet read, bounded by dropping the oldest unread part. */
export class UnreadBuffer {
  private unread: BoundedTail;

  constructor(private readonly max = 1024 * 1024) {
    this.unread = new BoundedTail(max);
  }

  push(chunk: string): void {
    this.unread.push(chunk);
  }

  /** Takes everything unread; `dropped` counts characters lost since the previous take. */
  take(): { text: string; dropped: number } {
    const result = { text: this.unread.text(), dropped: this.unread.dropped };
    this.unread = new BoundedTail(this.max);
    return result;
  }
}
