import fs from "node:fs";

/** Whether `p` is a file, links followed; false when it is missing or cannot be read. */
export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Whether `p` is a folder, links followed; false when it is missing or cannot be read. */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `p` with every link resolved, or `p` itself when it does not exist (yet). */
export function realpathOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}
