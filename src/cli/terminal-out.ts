import { terminalSafe } from "../util/terminal-text.js";
import type { MainIo } from "./types.js";

/**
 * `stream` with every write made terminal-safe: `always` for lines meant for people (lists, error
 * lines), `tty` for output a program may read (`-p`'s answer is kept byte for byte in a pipe or a
 * file, and cleaned only on a terminal). The dashboard's own stdout never goes through this: its
 * styles and cursor moves are orca's.
 */
export function terminalSafeStream<S extends NodeJS.WritableStream>(stream: S, when: "always" | "tty" = "always"): S {
  if (when === "tty" && (stream as { isTTY?: boolean }).isTTY !== true) return stream;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : String(chunk);
    return (stream.write as (c: string, ...r: unknown[]) => boolean)(terminalSafe(text), ...rest);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The io of a command that prints for people: stdout and stderr both cleaned. */
export function peopleIo(io: MainIo): MainIo {
  return { ...io, stdout: terminalSafeStream(io.stdout), stderr: terminalSafeStream(io.stderr) };
}
