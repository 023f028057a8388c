import fs from "node:fs";
import path from "node:path";
import { Redactor } from "./redact.js";
import { eventSchema, type OrcaEvent } from "./types.js";

/**
 * The session log: one JSON event a line, appended synchronously as it happens so that a crash
 * loses at most a torn last line (the page cache survives a killed process). Against power loss
 * the file is synced around tool calls, where the world changes: before a call starts, everything
 * logged so far — the previous calls' results included — is on disk. A result is synced by the
 * next call's start rather than at once, which halves the syncs; losing one to a power cut makes
 * resume report that call as "result unknown", which is the safe answer anyway.
 */
export class SessionLog {
  private fd: number | null;
  constructor(
    readonly file: string,
    readonly redactor = new Redactor(),
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.fd = fs.openSync(file, "a", 0o600);
  }

  append(event: OrcaEvent): void {
    if (this.fd === null) return;
    const line = this.redactor.redactJson(JSON.stringify(event));
    fs.writeSync(this.fd, line + "\n");
    if (event.type === "tool_started" || event.type === "session_finished") fs.fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

export interface ReadLogResult {
  events: OrcaEvent[];
  /** Lines that could not be parsed: a torn last line after a crash, or damage. */
  skipped: { line: number; reason: string }[];
}

export function readLog(file: string): ReadLogResult {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const events: OrcaEvent[] = [];
  const skipped: ReadLogResult["skipped"] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: i >= lines.length - 2 ? "torn last line" : "not JSON" });
      return;
    }
    const parsed = eventSchema.safeParse(json);
    if (parsed.success) events.push(parsed.data);
    else skipped.push({ line: i + 1, reason: `not an orca event: ${parsed.error.issues[0]?.message ?? "invalid"}` });
  });
  return { events, skipped };
}
