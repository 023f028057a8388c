import { countTokens } from "./tokens.js";

/**
 * Whether a prompt can fit a model's context window at all. A request that cannot is refused
 * before it is sent: the server would reject it after the whole body went up (2.7 MB for a
 * 600k-token prompt), or, worse, silently cut it.
 */

/** One line saying why `text` cannot be sent to `model`, or null when it may fit. */
export function promptFitProblem(text: string, model: string, window: number, what = "the prompt"): string | null {
  const bytes = Buffer.byteLength(text, "utf8");
  // No tokenizer makes a token of less than one byte: a text of no more bytes than the window fits, uncounted.
  if (bytes <= window) return null;
  const tokens = countTokens(text, model);
  if (tokens <= window) return null;
  return `${what} is ${tokens.toLocaleString("en-US")} tokens (${formatBytes(bytes)}); ${model}'s context window is ${window.toLocaleString("en-US")} tokens: not sent`;
}

/** The same refusal for a whole request (system prompt, history, tools) already counted. */
export function requestFitProblem(tokens: number, model: string, window: number): string | null {
  if (tokens <= window) return null;
  return `the request is ${tokens.toLocaleString("en-US")} tokens (system prompt, conversation and tools); ${model}'s context window is ${window.toLocaleString("en-US")} tokens: not sent`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
