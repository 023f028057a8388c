import fs from "node:fs";
import path from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import type { YAMLSeq } from "yaml";
import { writeFileAtomicSync } from "../../util/atomic-write.js";
import { parseRule } from "./rules.js";

/**
 * Adds or removes a `permissions.allow` rule in a config file (the project's `.orca/config.yaml`
 * or the user's `~/.config/orca/config.yaml`), keeping its comments and other keys: the yaml
 * Document API edits the tree, so a rule's text is always one quoted scalar and can never add a key.
 * A file or folder that is a symlink is refused: a workspace's `.orca/config.yaml` pointing at
 * another file must not let a saved rule write there.
 */

export class RuleFileError extends Error {}

/** Throws when `file` or its folder is a symlink (or not a plain file). */
function refuseLinks(file: string): void {
  for (const p of [path.dirname(file), file]) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) throw new RuleFileError(`refusing to write ${p}: it is a symlink`);
    if (p === file && !stat.isFile()) throw new RuleFileError(`refusing to write ${p}: not a regular file`);
  }
}

function load(file: string): ReturnType<typeof parseDocument> {
  refuseLinks(file);
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const doc = parseDocument(text);
  if (doc.errors.length) throw new RuleFileError(`${file}: ${doc.errors[0]!.message.split("\n")[0]}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new RuleFileError(`${file}: not a mapping`);
  return doc;
}

function save(file: string, doc: ReturnType<typeof parseDocument>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The folder may have been created just now; check again right before the write.
  refuseLinks(file);
  writeFileAtomicSync(file, doc.toString());
}

/** The rules under `permissions.allow`, as written. */
function allowList(doc: ReturnType<typeof parseDocument>): string[] {
  const seq = doc.getIn(["permissions", "allow"]);
  if (seq === undefined || seq === null) return [];
  if (!isSeq(seq)) throw new RuleFileError("permissions.allow is not a list");
  return seq.items.map((item) => String((item as { value?: unknown }).value ?? item));
}

/** Appends `rules` to `permissions.allow` of `file` (created if missing); rules already there are skipped. */
export function addAllowRules(file: string, rules: readonly string[]): string[] {
  for (const r of rules) {
    if (/[\r\n]/.test(r)) throw new RuleFileError("a rule is one line");
    parseRule(r);
  }
  const doc = load(file);
  const present = allowList(doc);
  const added = rules.filter((r, i) => !present.includes(r) && rules.indexOf(r) === i);
  if (added.length === 0) return [];
  const seq = doc.getIn(["permissions", "allow"]);
  if (isSeq(seq)) for (const r of added) (seq as YAMLSeq).add(doc.createNode(r));
  else doc.setIn(["permissions", "allow"], doc.createNode(added));
  save(file, doc);
  return added;
}

/** Removes `rule` from `permissions.allow` of `file`; false when it was not there. */
export function removeAllowRule(file: string, rule: string): boolean {
  if (!fs.existsSync(file)) return false;
  const doc = load(file);
  const seq = doc.getIn(["permissions", "allow"]);
  const index = allowList(doc).indexOf(rule);
  if (index < 0 || !isSeq(seq)) return false;
  seq.delete(index);
  save(file, doc);
  return true;
}
