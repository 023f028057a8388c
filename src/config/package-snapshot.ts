import fs from "node:fs";
import path from "node:path";

/**
 * The package's own config.yaml is the config of everyone who has none of their own. It is mostly
 * comments, which the YAML parser reads at ~1 ms a kilobyte on a cold start (~20 ms of every such
 * start). So the build stores the parsed value beside the bundle together with the text it came
 * from, and a start whose config.yaml still reads exactly that text takes the stored value. An
 * edited file, a missing or unreadable snapshot: the text is parsed as usual.
 */
export const PACKAGE_SNAPSHOT = path.join("dist", "config-snapshot.json");

export interface PackageConfigSnapshot {
  /** config.yaml's text when the snapshot was made. */
  source: string;
  /** What parsing that text gave. */
  value: unknown;
}

/** The parsed value of the package's config.yaml if the snapshot was made from `text`. */
export function packageConfigSnapshot(packageDir: string, text: string): unknown {
  let snapshot: Partial<PackageConfigSnapshot>;
  try {
    snapshot = JSON.parse(fs.readFileSync(path.join(packageDir, PACKAGE_SNAPSHOT), "utf8")) as Partial<PackageConfigSnapshot>;
  } catch {
    return undefined;
  }
  return snapshot.source === text ? snapshot.value : undefined;
}
