/**
 * A stdio server's stderr: the last `max` characters are kept (Claude Code kept all of it and grew
 * to 64 MB), and each complete line is handed to `onLine` as it arrives.
 */
export class StderrTail {
  private text = "";
  private partial = "";

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly max = 64 * 1024,
  ) {}

  push(chunk: Buffer | string): void {
    const s = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    this.text += s;
    if (this.text.length > this.max) this.text = this.text.slice(this.text.length - this.max);
    this.partial += s;
    const lines = this.partial.split(/\r?\n/);
    this.partial = lines.pop() ?? "";
    // A server that never writes a newline must not grow the pending line without bound.
    if (this.partial.length > this.max) {
      lines.push(this.partial.slice(0, this.max));
      this.partial = "";
    }
    for (const line of lines) if (line.trim().length > 0) this.onLine(line);
  }

  /** The last `lines` non-empty lines, for status and error messages. */
  tail(lines = 20): string {
    const all = this.text.split(/\r?\n/).filter((l) => l.trim().length > 0);
    return all.slice(-lines).join("\n");
  }

  lastLine(): string | undefined {
    const t = this.tail(1);
    return t.length > 0 ? t : undefined;
  }
}
