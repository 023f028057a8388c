import { o200k } from "../model/encoders.js";

/**
 * Head+tail truncation of tool output by tokens. The start of an output (headers, the first
 * error) and its end (summaries, exit status) are the parts worth keeping; the middle goes.
 */

// Tool output is data, not a prompt: text that looks like a special token is just text, and the
// tokenizer would otherwise throw on it.
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

export function tokenCount(text: string): number {
  return o200k().countTokens(text, ENCODE_OPTIONS);
}

export interface OmissionInfo {
  /** Input lines not shown in full (a line cut in the middle counts as omitted). */
  omittedLines: number;
  /** 1-based index of the first input line not shown in full. */
  firstOmittedLine: number;
  omittedChars: number;
}

export interface Truncation extends OmissionInfo {
  text: string;
  truncated: boolean;
  /** The kept prefix of the input. */
  head: string;
  /** The kept suffix of the input. */
  tail: string;
  /** The notice line placed between head and tail ("" when not truncated). */
  notice: string;
}

export type NoticeFn = (info: OmissionInfo) => string;

export const defaultNotice: NoticeFn = ({ omittedLines, omittedChars }) =>
  `[… ${omittedLines} line${omittedLines === 1 ? "" : "s"} (${omittedChars} characters) omitted …]`;

/**
 * Keeps at most `maxTokens` tokens of `text`: whole lines from the start and the end, about half
 * each, joined by a notice line saying what was left out. A single line too long for its half is
 * cut inside the line, so something is always shown.
 */
export function truncateHeadTail(text: string, maxTokens: number, notice: NoticeFn = defaultNotice): Truncation {
  const budget = Math.max(0, Math.floor(maxTokens));
  // Every token covers at least one UTF-8 byte, so a short text cannot be over budget.
  if (Buffer.byteLength(text, "utf8") <= budget || tokenCount(text) <= budget) {
    return { text, truncated: false, head: text, tail: "", notice: "", omittedLines: 0, firstOmittedLine: 0, omittedChars: 0 };
  }
  const segments = text.split(/(?<=\n)/);
  const headBudget = Math.floor(budget / 2);
  const head = takeHead(segments, headBudget);

  let tailBudget = budget - tokenCount(head.text);
  let tail = takeTail(segments, head.fullSegments, head.text.length - joinedLength(segments, head.fullSegments), tailBudget);
  // Token counts are not strictly additive; if head and tail together cover everything, give up
  // tail tokens until something is actually left out.
  while (head.text.length + tail.text.length >= text.length && tailBudget > 0) {
    tailBudget -= 1;
    tail = takeTail(segments, head.fullSegments, head.text.length - joinedLength(segments, head.fullSegments), tailBudget);
  }

  const omittedChars = text.length - head.text.length - tail.text.length;
  const omittedLines = segments.length - head.fullSegments - tail.fullSegments;
  const info: OmissionInfo = { omittedLines, firstOmittedLine: head.fullSegments + 1, omittedChars };
  const noticeLine = notice(info);
  const joiner = head.text === "" || head.text.endsWith("\n") ? "" : "\n";
  return {
    text: `${head.text}${joiner}${noticeLine}\n${tail.text}`,
    truncated: true,
    head: head.text,
    tail: tail.text,
    notice: noticeLine,
    ...info,
  };
}

interface Taken {
  text: string;
  /** Segments (lines with their newline) included whole. */
  fullSegments: number;
}

function joinedLength(segments: string[], count: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) n += segments[i].length;
  return n;
}

function takeHead(segments: string[], budget: number): Taken {
  let used = 0;
  let count = 0;
  while (count < segments.length) {
    const cost = tokenCount(segments[count]);
    if (used + cost > budget) break;
    used += cost;
    count += 1;
  }
  let text = segments.slice(0, count).join("");
  // Per-line counts only approximate the count of the joined lines: check, and back off.
  while (count > 0 && tokenCount(text) > budget) {
    count -= 1;
    text = segments.slice(0, count).join("");
  }
  if (count === 0 && segments.length > 0) return { text: cutPrefix(segments[0], budget), fullSegments: 0 };
  return { text, fullSegments: count };
}

/**
 * Whole lines from the end, never reaching into the first `headSegments` lines; `headPartial`
 * characters of the next line belong to the head when it was cut inside that line.
 */
function takeTail(segments: string[], headSegments: number, headPartial: number, budget: number): Taken {
  const firstAllowed = headSegments + (headPartial > 0 ? 1 : 0);
  let used = 0;
  let start = segments.length;
  while (start > firstAllowed) {
    const cost = tokenCount(segments[start - 1]);
    if (used + cost > budget) break;
    used += cost;
    start -= 1;
  }
  let text = segments.slice(start).join("");
  while (start < segments.length && tokenCount(text) > budget) {
    start += 1;
    text = segments.slice(start).join("");
  }
  const full = segments.length - start;
  if (full === 0 && start - 1 >= headSegments) {
    const last = segments[segments.length - 1];
    // Do not overlap the part of this line the head already shows.
    const available = start - 1 === headSegments ? last.slice(headPartial) : last;
    return { text: cutSuffix(available, budget), fullSegments: 0 };
  }
  return { text, fullSegments: full };
}

// A token rarely spans more than a few dozen characters; looking further is wasted work.
const MAX_CHARS_PER_TOKEN = 32;

function cutPrefix(line: string, budget: number): string {
  if (budget <= 0) return "";
  const window = line.slice(0, budget * MAX_CHARS_PER_TOKEN);
  let prefix = o200k().decode(o200k().encode(window, ENCODE_OPTIONS).slice(0, budget));
  // A token boundary inside a multi-byte character decodes to U+FFFD: drop it.
  while (prefix.length > 0 && !line.startsWith(prefix)) prefix = prefix.slice(0, -1);
  while (prefix.length > 0 && tokenCount(prefix) > budget) prefix = prefix.slice(0, -1);
  return prefix;
}

function cutSuffix(line: string, budget: number): string {
  if (budget <= 0) return "";
  const window = line.slice(Math.max(0, line.length - budget * MAX_CHARS_PER_TOKEN));
  const tokens = o200k().encode(window, ENCODE_OPTIONS);
  let suffix = o200k().decode(tokens.slice(Math.max(0, tokens.length - budget)));
  while (suffix.length > 0 && !line.endsWith(suffix)) suffix = suffix.slice(1);
  while (suffix.length > 0 && tokenCount(suffix) > budget) suffix = suffix.slice(1);
  return suffix;
}
