#!/usr/bin/env node
// Summarises a log file into a compact timeline of its errors and warnings, with counts, so a
// long log can be understood without reading all of it. Node 20, no dependencies.
//
//   node scripts/timeline.mjs [--max N] [--errors-only] FILE      (FILE "-" reads stdin)
//
// Timestamps recognised (near the start of a line): ISO 8601 (2024-05-01T12:03:04.123Z,
// 2024-05-01 12:03:04,123 +02:00), syslog (May  1 12:03:04), Apache/nginx ([01/May/2024:12:03:04
// +0000]), and clock times ([12:03:04], 12:03:04.5 at the start of a line). Levels: ERROR, FATAL,
// CRITICAL, PANIC, SEVERE, WARN, WARNING (any case in level position: level=error, [warn],
// "level":"error", error:), exception lines (ValueError: …, Traceback), HTTP 5xx (error) and 4xx
// (warning) in access logs. Untimestamped lines after a timestamped one (stack traces) belong to
// it and are not counted again.
import fs from "node:fs";
import readline from "node:readline";

function usage(message) {
  process.stderr.write(`${message}\nusage: node scripts/timeline.mjs [--max N] [--errors-only] FILE\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let maxLines = 40;
let errorsOnly = false;
let file = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--max") {
    maxLines = Number(argv[++i]);
    if (!Number.isInteger(maxLines) || maxLines < 1) usage("--max needs a positive whole number");
  } else if (a === "--errors-only") errorsOnly = true;
  else if (a === "-h" || a === "--help") usage("Summarises a log into a timeline of errors and warnings.");
  else if (a.startsWith("-") && a !== "-") usage(`unknown option ${a}`);
  else if (file) usage("name one log file");
  else file = a;
}
if (!file) usage("name a log file (or - for stdin)");
if (file !== "-" && !(fs.existsSync(file) && fs.statSync(file).isFile())) usage(`no such file: ${file}`);

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MON = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const pad = (n) => String(n).padStart(2, "0");
const HEAD = 80; // a timestamp further into the line is part of the message

const FORMATS = [
  {
    name: "ISO 8601",
    re: /(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:\s?(Z|[+-]\d{2}:?\d{2}))?/,
    parse: (m) => {
      const offset = !m[7] || m[7] === "Z" ? 0 : offsetMinutes(m[7]);
      return {
        day: `${m[1]}-${m[2]}-${m[3]}`,
        time: `${m[4]}:${m[5]}:${m[6]}`,
        ms: Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) - offset * 60_000,
      };
    },
  },
  {
    name: "Apache/nginx",
    re: /\[(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\s([+-]\d{4}))?\]/,
    parse: (m) => {
      const month = MONTHS.indexOf(m[2].toLowerCase());
      const offset = m[7] ? offsetMinutes(m[7]) : 0;
      return {
        day: `${m[3]}-${pad(month + 1)}-${m[1]}`,
        time: `${m[4]}:${m[5]}:${m[6]}`,
        ms: Date.UTC(+m[3], month, +m[1], +m[4], +m[5], +m[6]) - offset * 60_000,
      };
    },
  },
  {
    name: "syslog",
    re: new RegExp(`^(?:<\\d+>)?${MON}\\s+(\\d{1,2})\\s(\\d{2}):(\\d{2}):(\\d{2})`),
    parse: (m) => {
      const month = MONTHS.indexOf(m[1].toLowerCase());
      // syslog has no year: a fixed one keeps the order within the file.
      return {
        day: `${m[1]} ${pad(m[2])}`,
        time: `${m[3]}:${m[4]}:${m[5]}`,
        ms: Date.UTC(2000, month, +m[2], +m[3], +m[4], +m[5]),
      };
    },
  },
  {
    name: "clock",
    re: /^\[?(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?\]?(?=[\s\]:|-]|$)|\[(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?\]/,
    parse: (m) => {
      const [h, mi, s] = m[1] ? [m[1], m[2], m[3]] : [m[4], m[5], m[6]];
      return { day: null, time: `${h}:${mi}:${s}`, ms: (+h * 3600 + +mi * 60 + +s) * 1000 };
    },
  },
];

function offsetMinutes(text) {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  return m ? (m[1] === "-" ? -1 : 1) * (+m[2] * 60 + +m[3]) : 0;
}

/** The earliest timestamp near the start of the line, with the format that matched it. */
function findTimestamp(line) {
  const head = line.slice(0, HEAD);
  let best = null;
  for (const format of FORMATS) {
    const m = format.re.exec(head);
    if (m && (!best || m.index < best.index)) best = { index: m.index, text: m[0], format: format.name, ...format.parse(m) };
  }
  return best;
}

const LEVEL_NAMES = "fatal|critical|crit|error|err|panic|severe|emerg|alert|warning|warn|notice|info|debug|trace|verbose";
const LEADING_LEVEL = new RegExp(`^[\\s\\-|:]*[[<(]?(${LEVEL_NAMES})\\b[\\]>)]?:?`, "i");
const LEVEL_KV = /["']?(?:level|severity|lvl)["']?\s*[=:]\s*["']?(\w+)["']?/i;
const BRACKETED = new RegExp(`[[<(](${LEVEL_NAMES})[\\]>)]`, "i");
const AFTER_COLON = new RegExp(`[:\\]]\\s*(${LEVEL_NAMES}):`, "i");
const ERROR_WORDS = /\b(?:FATAL|CRITICAL|CRIT|ERROR|ERR|PANIC|SEVERE|EMERG|ALERT)\b/;
const WARN_WORDS = /\b(?:WARNING|WARN)\b/;
const EXCEPTION = /^(?:[\w.$]+\.)?\w*(?:Error|Exception)\b(?::|$)|^Traceback \(most recent call last\)/;
const HTTP_STATUS = /"\s(\d{3})\s/;

/** ERROR, WARN, INFO (any level below a warning) or undefined for a word that is no level. */
function classify(word) {
  const w = word.toLowerCase();
  if (/^(?:fatal|critical|crit|error|err|panic|severe|emerg|alert)$/.test(w)) return "ERROR";
  if (/^(?:warning|warn)$/.test(w)) return "WARN";
  if (/^(?:notice|info|debug|trace|verbose)$/.test(w)) return "INFO";
  return undefined;
}

/**
 * An explicit level (the first word of the message, level=…, [warn], "prog: error:") decides;
 * only without one do words elsewhere in the line count, so "INFO retried after ERROR" is info.
 */
function levelOf(rest) {
  for (const re of [LEADING_LEVEL, LEVEL_KV, BRACKETED, AFTER_COLON]) {
    const m = re.exec(rest);
    const level = m && classify(m[1]);
    if (level) return level === "INFO" ? null : level;
  }
  if (ERROR_WORDS.test(rest)) return "ERROR";
  if (WARN_WORDS.test(rest)) return "WARN";
  if (EXCEPTION.test(rest.trim())) return "ERROR";
  const status = HTTP_STATUS.exec(rest);
  if (status && status[1] >= "500") return "ERROR";
  if (status && status[1] >= "400") return "WARN";
  return null;
}

/** The message without its level token, one line, short. */
function messageOf(rest) {
  const text = rest
    .replace(LEVEL_KV, (all, word) => (classify(word) ? "" : all))
    .replace(LEADING_LEVEL, "")
    .replace(/^[\s\-:|]*/, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 110 ? `${text.slice(0, 109)}…` : text || "(no message)";
}

/** A JSON log line (pino, bunyan, zap, structlog…): its level and message fields. */
function jsonLine(line) {
  if (!line.trimStart().startsWith("{")) return null;
  try {
    const obj = JSON.parse(line);
    if (!obj || typeof obj !== "object") return null;
    const rawLevel = obj.level ?? obj.severity ?? obj.lvl ?? obj.levelname;
    // pino and bunyan write numeric levels: 40 warn, 50 error, 60 fatal.
    const level =
      typeof rawLevel === "number" ? (rawLevel >= 50 ? "ERROR" : rawLevel >= 40 ? "WARN" : "INFO") : classify(String(rawLevel ?? ""));
    const msg = obj.msg ?? obj.message ?? obj.error ?? obj.err ?? obj.event;
    const message = typeof msg === "string" ? msg : msg === undefined ? line : JSON.stringify(msg);
    return { level: level === "INFO" ? null : level ?? null, message: messageOf(message) };
  } catch {
    return null;
  }
}

/** The shape of a message: ids, numbers and addresses replaced, so repeats can be counted. */
function shapeOf(message) {
  return message
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
    .replace(/\b0x[0-9a-f]+\b/gi, "<hex>")
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, "<hex>")
    .replace(/\d+/g, "<n>");
}

const stream = file === "-" ? process.stdin : fs.createReadStream(file, { encoding: "utf8" });
const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });

let lineCount = 0;
let stamped = 0;
const formatsSeen = new Map();
let first = null;
let last = null;
let current = null; // the last timestamp seen, inherited by following lines
let lastEvent = null;
const events = [];

for await (const raw of lines) {
  lineCount++;
  const line = raw.replace(/\x1b\[[0-9;]*m/g, "");
  if (!line.trim()) continue;
  const ts = findTimestamp(line);
  if (ts) {
    stamped++;
    formatsSeen.set(ts.format, (formatsSeen.get(ts.format) ?? 0) + 1);
    current = ts;
    first ??= ts;
    last = ts;
  } else if (stamped > 0) {
    // Part of the event above (a stack trace, a wrapped message): remember the exception line.
    if (lastEvent && EXCEPTION.test(line.trim()) && !/^\s/.test(line)) {
      lastEvent.detail = messageOf(line.trim());
    }
    continue;
  }
  const rest = ts ? line.slice(0, ts.index) + line.slice(ts.index + ts.text.length) : line;
  const json = jsonLine(line);
  const level = json ? json.level : levelOf(rest);
  lastEvent = null;
  if (!level || (errorsOnly && level !== "ERROR")) continue;
  const message = json ? json.message : messageOf(rest);
  lastEvent = { line: lineCount, ts: current, level, message, shape: `${level} ${shapeOf(message)}` };
  events.push(lastEvent);
}

const days = new Set(events.map((e) => e.ts?.day).filter(Boolean));
const showDay = days.size > 1;
const when = (ts) => (!ts ? "--:--:--" : showDay && ts.day ? `${ts.day} ${ts.time}` : ts.time);

function duration(ms) {
  const s = Math.round(ms / 1000);
  const parts = [];
  if (s >= 86400) parts.push(`${Math.floor(s / 86400)}d`);
  if (s >= 3600) parts.push(`${Math.floor((s % 86400) / 3600)}h`);
  if (s >= 60) parts.push(`${Math.floor((s % 3600) / 60)}m`);
  parts.push(`${s % 60}s`);
  return parts.join(" ");
}

const name = file === "-" ? "stdin" : file;
const formats = [...formatsSeen.keys()].join(", ");
let header = `${name}: ${lineCount} lines, ${stamped} with timestamps`;
if (stamped) {
  header += ` (${formats})`;
  const span = last.ms - first.ms;
  const range = first.day && last.day && first.day !== last.day ? `${first.day} ${first.time} → ${last.day} ${last.time}` : `${first.day ? `${first.day} ` : ""}${first.time} → ${last.time}`;
  header += `, ${range}`;
  if (formatsSeen.size === 1 && span >= 0) header += ` (${duration(span)})`;
} else {
  header += " (no timestamp format recognised; events are in file order)";
}
console.log(header);
const errors = events.filter((e) => e.level === "ERROR").length;
const warnings = events.length - errors;
console.log(errorsOnly ? `Errors: ${errors}` : `Errors: ${errors} · Warnings: ${warnings}`);
if (events.length === 0) {
  console.log(errorsOnly ? "No errors found." : "No errors or warnings found.");
  process.exit(0);
}

// Repeats in a row are folded into one line with a count and the time of the last one.
const folded = [];
for (const e of events) {
  const prev = folded[folded.length - 1];
  if (prev && prev.shape === e.shape) {
    prev.count++;
    prev.until = e.ts;
  } else folded.push({ ...e, count: 1, until: null });
}

console.log("");
console.log(`Timeline (${errorsOnly ? "errors" : "errors and warnings"}; repeats in a row folded; line numbers in brackets):`);
const shown = folded.length > maxLines ? [...folded.slice(0, Math.ceil(maxLines / 2)), null, ...folded.slice(folded.length - Math.floor(maxLines / 2))] : folded;
const timeWidth = Math.max(...folded.map((e) => when(e.ts).length));
for (const e of shown) {
  if (!e) {
    console.log(`  … ${folded.length - maxLines} more timeline lines …`);
    continue;
  }
  const repeat = e.count > 1 ? ` (×${e.count}${e.until ? ` until ${when(e.until)}` : ""})` : "";
  const detail = e.detail ? ` — ${e.detail}` : "";
  console.log(`  ${when(e.ts).padEnd(timeWidth)}  ${e.level.padEnd(5)}  ${e.message}${detail}${repeat}  [${e.line}]`);
}

const counts = new Map();
for (const e of events) {
  const entry = counts.get(e.shape) ?? { count: 0, level: e.level, example: e.message };
  entry.count++;
  counts.set(e.shape, entry);
}
const top = [...counts.values()].sort((a, b) => b.count - a.count || (a.level < b.level ? -1 : 1)).slice(0, 8);
console.log("");
console.log("Most frequent:");
for (const t of top) console.log(`  ${String(t.count).padStart(4)}×  ${t.level.padEnd(5)}  ${t.example}`);

const firstError = events.find((e) => e.level === "ERROR");
if (firstError) console.log(`\nFirst error: line ${firstError.line}${firstError.ts ? ` at ${when(firstError.ts)}` : ""}: ${firstError.message}`);
const perMinute = new Map();
for (const e of events) {
  if (!e.ts) continue;
  const key = `${showDay && e.ts.day ? `${e.ts.day} ` : ""}${e.ts.time.slice(0, 5)}`;
  const m = perMinute.get(key) ?? { errors: 0, warnings: 0 };
  if (e.level === "ERROR") m.errors++;
  else m.warnings++;
  perMinute.set(key, m);
}
const busiest = [...perMinute.entries()].sort((a, b) => b[1].errors + b[1].warnings - (a[1].errors + a[1].warnings))[0];
if (busiest && perMinute.size > 1) {
  const [minute, m] = busiest;
  console.log(`Busiest minute: ${minute} (${m.errors} error${m.errors === 1 ? "" : "s"}${errorsOnly ? "" : `, ${m.warnings} warning${m.warnings === 1 ? "" : "s"}`})`);
}
