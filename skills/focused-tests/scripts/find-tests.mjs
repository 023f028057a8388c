#!/usr/bin/env node
// Finds the test files related to given source files, so a change is tested by the few tests
// that cover it instead of the whole suite. Node 20, no dependencies.
//
//   node scripts/find-tests.mjs [--root DIR] FILE...
//
// FILE paths are taken from the current directory; --root is the project to search (default:
// the current directory). For each FILE it prints the related tests, best first, with why they
// match: "same name" (parser.js ↔ parser.test.js, test_parser.py, parser_test.go, ParserTest.java),
// "imports it" (a relative import that resolves to FILE), "imports <name>" (an import naming a
// module of that name), "name mentions <name>" (skills-parser.test.ts for parser.ts). When none
// match it suggests where a new test would go, following the project's existing layout. The last
// line says how to run the tests it found, when the runner is clear.
import fs from "node:fs";
import path from "node:path";

const SKIP_DIRS = new Set([
  "node_modules", "dist", "build", "out", "coverage", "vendor", "target", "venv", "__pycache__",
  "fixtures", "__fixtures__", "testdata", "__snapshots__",
]);
const CODE = /\.(?:[cm]?[jt]sx?|py|go|rb|rs|java|kt|cs|php|swift|scala)$/;
const MAX_WALK = 50_000;
const MAX_READ = 512 * 1024;
const MAX_SHOWN = 10;

function usage(message) {
  process.stderr.write(`${message}\nusage: node scripts/find-tests.mjs [--root DIR] FILE...\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let root = ".";
const inputs = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--root") {
    root = argv[++i];
    if (!root) usage("--root needs a directory");
  } else if (argv[i] === "-h" || argv[i] === "--help") usage("Finds test files related to source files.");
  else if (argv[i].startsWith("-")) usage(`unknown option ${argv[i]}`);
  else inputs.push(argv[i]);
}
if (inputs.length === 0) usage("name at least one source file");
root = path.resolve(root);
if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) usage(`no such directory: ${root}`);

const toPosix = (p) => p.split(path.sep).join("/");
const extOf = (name) => (name.match(/\.[^./]+$/) ?? [""])[0];

/** The name a test file is about: parser.test.js, test_parser.py, parser_test.go, ParserTest.java → parser / Parser. */
function testSubject(base) {
  const stem = base.slice(0, base.length - extOf(base).length);
  return stem
    .replace(/\.(?:test|spec|e2e|unit|integration)$/i, "")
    .replace(/^test_/, "")
    .replace(/_(?:test|spec)$/, "")
    .replace(/(?<=[a-z0-9])Tests?$/, "");
}

function isTestFile(rel) {
  const base = path.posix.basename(rel);
  if (!CODE.test(base)) return false;
  if (/\.(?:test|spec)\.[^.]+$/i.test(base)) return true;
  if (/^test_.+\.py$/.test(base) || /_test\.(?:py|go|rb)$/.test(base) || /_spec\.rb$/.test(base)) return true;
  if (/[a-z0-9]Tests?\.(?:java|kt|cs|scala|swift|php)$/.test(base)) return true;
  const dirs = rel.split("/").slice(0, -1);
  if (dirs.includes("__tests__")) return true;
  if (base.endsWith(".rs") && dirs[dirs.length - 1] === "tests") return true;
  return false;
}

function collectTests() {
  const tests = [];
  let seen = 0;
  const walk = (abs, rel) => {
    let entries;
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_WALK) return;
      if (e.name.startsWith(".")) continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(path.join(abs, e.name), childRel);
      } else if (e.isFile() && isTestFile(childRel)) tests.push(childRel);
    }
  };
  walk(root, "");
  return tests.sort();
}

function read(rel) {
  try {
    const abs = path.join(root, rel);
    if (fs.statSync(abs).size > MAX_READ) return "";
    return fs.readFileSync(abs, "utf8");
  } catch {
    return "";
  }
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const IMPORT_LINE = /\b(?:import|from|require|use|include|mod)\b/;
const JS_SPECIFIER = /(?:from\s*|require\s*\(\s*|import\s*\(\s*|import\s+)["'`]([^"'`]+)["'`]/g;

/** Relative JS/TS imports of a test, resolved to root-relative paths without extension. */
function relativeImports(testRel, text) {
  const out = new Set();
  for (const m of text.matchAll(JS_SPECIFIER)) {
    const spec = m[1];
    if (!spec.startsWith(".")) continue;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(testRel), spec));
    out.add(resolved.replace(/\.[cm]?[jt]sx?$/, ""));
    out.add(`${resolved}/index`);
  }
  return out;
}

const testFiles = collectTests();
const testInfo = testFiles.map((rel) => {
  const text = read(rel);
  return {
    rel,
    subject: testSubject(path.posix.basename(rel)),
    importLines: text.split("\n").filter((l) => IMPORT_LINE.test(l)),
    relImports: relativeImports(rel, text),
  };
});

const GENERIC = new Set(["index", "__init__", "mod", "main", "lib"]);

function relatedTests(sourceRel) {
  const base = path.posix.basename(sourceRel);
  const stem = base.slice(0, base.length - extOf(base).length);
  // index.ts or __init__.py is known by its folder's name.
  const names = [stem];
  if (GENERIC.has(stem)) names.push(path.posix.basename(path.posix.dirname(sourceRel)));
  const noExt = sourceRel.slice(0, sourceRel.length - extOf(base).length);
  const found = [];
  for (const t of testInfo) {
    if (t.rel === sourceRel) continue;
    const reasons = [];
    let score = 0;
    if (names.some((n) => n && t.subject.toLowerCase() === n.toLowerCase())) {
      reasons.push("same name");
      score += 4;
    }
    if (t.relImports.has(noExt)) {
      reasons.push("imports it");
      score += 3;
    } else {
      const named = names.find((n) => {
        if (!n || n === "." || GENERIC.has(n)) return false;
        const re = new RegExp(`(?:^|[^\\w-])${escape(n)}(?![\\w-])`);
        return t.importLines.some((l) => re.test(l));
      });
      if (named) {
        reasons.push(`imports ${named}`);
        score += 2;
      }
    }
    if (score === 0) {
      const tokens = t.subject.toLowerCase().split(/[-_.]/);
      const mentioned = names.find((n) => n && !GENERIC.has(n) && tokens.includes(n.toLowerCase()));
      if (mentioned) {
        reasons.push(`name mentions ${mentioned}`);
        score += 1;
      }
    }
    if (score > 0) found.push({ rel: t.rel, reasons, score });
  }
  return found.sort((a, b) => b.score - a.score || (a.rel < b.rel ? -1 : 1));
}

/** Where a new test for sourceRel would go, copying the most common layout of same-language tests. */
function suggestTest(sourceRel) {
  const ext = extOf(sourceRel);
  const family = (e) => e.replace(/^\.[cm]?([jt])sx?$/, ".$1s");
  const same = testFiles.filter((t) => family(extOf(t)) === family(ext));
  if (same.length === 0) return null;
  const stem = path.posix.basename(sourceRel, ext);
  const layouts = new Map();
  for (const t of same) {
    const base = path.posix.basename(t);
    const subject = testSubject(base);
    const pattern = base.replace(subject, "\0");
    const dir = path.posix.dirname(t);
    const inSourceDir = dir === path.posix.dirname(sourceRel);
    const key = `${pattern}|${inSourceDir ? "<beside>" : dir}`;
    layouts.set(key, (layouts.get(key) ?? 0) + 1);
  }
  const [best] = [...layouts.entries()].sort((a, b) => b[1] - a[1]);
  const [pattern, dir] = best[0].split("|");
  const file = pattern.replace("\0", stem);
  const where = dir === "<beside>" ? path.posix.dirname(sourceRel) : dir;
  return where === "." ? file : `${where}/${file}`;
}

/** How to run tests of one language; null when the runner is not clear. */
function runCommand(kind, tests) {
  const list = tests.join(" ");
  if (kind === "js") {
    let pkg = {};
    try {
      pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    } catch {
      /* no package.json: fall through to node --test */
    }
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    if (deps.vitest) return `npx vitest run ${list}`;
    if (deps.jest) return `npx jest ${list}`;
    if (deps.mocha) return `npx mocha ${list}`;
    if (tests.some((t) => /["']node:test["']/.test(read(t)))) return `node --test ${list}`;
    return null;
  }
  if (kind === ".py") return `python -m pytest ${list}`;
  if (kind === ".go") return `go test ${[...new Set(tests.map((t) => `./${path.posix.dirname(t)}`))].join(" ")}`;
  if (kind === ".rb") return `bundle exec rspec ${list}`;
  return null;
}

const allFound = new Set();
console.log(`Project: ${root} (${testFiles.length} test file${testFiles.length === 1 ? "" : "s"})`);
for (const input of inputs) {
  const sourceRel = toPosix(path.relative(root, path.resolve(input)));
  const exists = fs.existsSync(path.resolve(input));
  console.log("");
  console.log(`${sourceRel}${exists ? "" : "  (no such file; matching by name only)"}`);
  if (isTestFile(sourceRel)) {
    console.log("  is a test file itself");
    allFound.add(sourceRel);
    continue;
  }
  const related = relatedTests(sourceRel);
  if (related.length === 0) {
    const suggestion = suggestTest(sourceRel);
    console.log(
      suggestion
        ? `  no related tests found; following this project's layout, a new test would be ${suggestion}`
        : "  no related tests found, and no tests in this language to copy a layout from",
    );
    continue;
  }
  const width = Math.max(...related.slice(0, MAX_SHOWN).map((r) => r.rel.length));
  for (const r of related.slice(0, MAX_SHOWN)) {
    console.log(`  ${r.rel.padEnd(width)}  ${r.reasons.join(", ")}`);
    allFound.add(r.rel);
  }
  if (related.length > MAX_SHOWN) console.log(`  … and ${related.length - MAX_SHOWN} weaker matches`);
}
console.log("");
const byKind = new Map();
for (const t of allFound) {
  const kind = /^\.[cm]?[jt]sx?$/.test(extOf(t)) ? "js" : extOf(t);
  byKind.set(kind, [...(byKind.get(kind) ?? []), t]);
}
if (byKind.size === 0) console.log("No tests to run.");
for (const [kind, tests] of byKind) {
  const command = runCommand(kind, tests);
  console.log(command ? `Run them: ${command}` : `Run ${tests.join(" ")} with the project's test runner.`);
}
