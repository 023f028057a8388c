import crypto from "node:crypto";
import fs from "node:fs";

/** The content hash orca records for a file version (sha256, first 128 bits, hex). */
export function contentHash(data: Buffer | string): string {
  return crypto.createHash("sha256").update(data).digest("hex").slice(0, 32);
}

const CHUNK = 1024 * 1024;

/** The content hash of what is left to read from `fd`, read in chunks (a file of any size). */
export function hashFdSync(fd: number): string {
  const hash = crypto.createHash("sha256");
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let read = fs.readSync(fd, buffer); read > 0; read = fs.readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  return hash.digest("hex").slice(0, 32);
}
