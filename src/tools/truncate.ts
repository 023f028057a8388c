import type { TokenCounter } from "../util/token-counter.js";
import { codePointBoundary } from "../util/text.js";

/**
 * Head+tail truncation of tool output by tokens. The start of an output (headers, the first
 * error) and its end (summaries, exit status) are the parts worth keeping; the middle goes.
 *
 * Cut by characters first, then by tokens: only the first and last few characters a token of
 * budget are ever tokenized, so a megabyte of output costs about what a page does.
 */

/**
 * Characters a token of budget looked at, at each end. Prose and code run 3–5 characters a
 * token; text sparser than this (long runs of spaces) keeps fewer tokens than the budget allows,
 * which is the price of never tokenizing the whole output.
 */
const WINDOW_CHARS_PER_TOKEN = 8;

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
export function truncateHeadTail(text: string, maxTokens: number, tokens: TokenCounter, notice: NoticeFn = defaultNotice): Truncation {
  const budget = Math.max(0, Math.floor(maxTokens));
  const whole: Truncation = { text, truncated: false, head: text, tail: "", notice: "", omittedLines: 0, firstOmittedLine: 0, omittedChars: 0 };
  // Every token covers at least one UTF-8 byte, so a short text cannot be over budget.
  if (Buffer.byteLength(text, "utf8") <= budget) return whole;
  if (text.length <= budget * WINDOW_CHARS_PER_TOKEN && tokens.count(text) <= budget) return whole;

  const headBudget = Math.floor(budget / 2);
  const headRaw = tokens.head(text.slice(0, codePointBoundary(text, headBudget * WINDOW_CHARS_PER_TOKEN)), headBudget);
  // Whole lines when at least one fits; otherwise the start of the first line.
  const lastBreak = headRaw.lastIndexOf("\n");
  const head = lastBreak >= 0 ? headRaw.slice(0, lastBreak + 1) : headRaw;

  const tailBudget = budget - tokens.count(head);
  const rest = text.slice(head.length);
  const tailRaw = tokens.tail(rest.slice(codePointBoundary(rest, rest.length - tailBudget * WINDOW_CHARS_PER_TOKEN)), tailBudget);
  let tail = fromLineStart(text, tailRaw);
  if (head.length + tail.length >= text.length) {
    // Token counts are not additive: head and tail may together cover text that is over budget
    // as a whole. Leave something out (or, if the whole fits after all, keep it).
    if (tokens.count(text) <= budget) return whole;
    tail = tail.slice(codePointBoundary(tail, head.length + tail.length - text.length + 1));
    while (tail !== "" && tokens.count(tail) > tailBudget) tail = tail.slice(codePointBoundary(tail, 1));
  }

  const info = omission(text, head, tail);
  const noticeLine = notice(info);
  const joiner = head === "" || head.endsWith("\n") ? "" : "\n";
  return { text: `${head}${joiner}${noticeLine}\n${tail}`, truncated: true, head, tail, notice: noticeLine, ...info };
}

/** A suffix of `text` cut back to the start of a line, unless it holds no whole line. */
function fromLineStart(text: string, suffix: string): string {
  const start = text.length - suffix.length;
  if (start === 0 || text[start - 1] === "\n") return suffix;
  const firstBreak = suffix.indexOf("\n");
  return firstBreak >= 0 && firstBreak < suffix.length - 1 ? suffix.slice(firstBreak + 1) : suffix;
}

function omission(text: string, head: string, tail: string): OmissionInfo {
  const endsWithBreak = text.endsWith("\n");
  const lines = newlines(text) + (endsWithBreak ? 0 : 1);
  const headLines = newlines(head);
  const tailStart = text.length - tail.length;
  const tailStartsLine = tailStart === 0 || text[tailStart - 1] === "\n";
  const tailLines = tail === "" ? 0 : newlines(tail) + (endsWithBreak ? 0 : 1) - (tailStartsLine ? 0 : 1);
  return { omittedLines: lines - headLines - tailLines, firstOmittedLine: headLines + 1, omittedChars: text.length - head.length - tail.length };
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
