import { EventEmitter } from "node:events";

/** A terminal's output side for rendering the real dashboard in a test: keeps what was written. */
export class FakeOut extends EventEmitter {
  chunks: string[] = [];
  isTTY = true;
  constructor(
    public columns = 100,
    public rows = 30,
  ) {
    super();
  }
  write = (chunk: string): boolean => {
    this.chunks.push(chunk);
    return true;
  };
  get text(): string {
    return this.chunks.join("");
  }
}

/** A terminal's input side: `send` delivers keys the way a raw-mode TTY does. */
export class FakeIn extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  send(data: string): void {
    this.data = data;
    this.emit("readable");
  }
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(_on: boolean): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
