import type { Model, RequestUsage } from "../model/model.js";
import { worstInputRate } from "../model/pricing.js";
import { countTokens } from "../model/tokens.js";

/** What one request streamed, as far as orca saw it. */
export interface Streamed {
  /** Any event arrived: the server took the request. */
  received: boolean;
  /** It ended with its `done` event. */
  finished: boolean;
  /** Cancelled while in flight (the server may have been generating). */
  cancelled: boolean;
  /** The output orca saw: text, reasoning and tool calls. */
  output: string;
}

/**
 * What a request is charged when its server sent no usage report (one that ignores
 * stream_options, a stream cut mid-way, a cancel): uncharged, it would pass every budget and show
 * $0. The input is orca's count of the request, billed at the worst input rate; the output is what
 * was streamed, counted — and for a request that did not finish, at least the max_tokens it held,
 * since the server may have generated more than arrived. A request refused before any byte (an
 * HTTP error) is not billed by providers: null.
 */
export function unreportedUsage(inputTokens: number, streamed: Streamed, model: Pick<Model, "name" | "price">, heldOutput: number | undefined): (RequestUsage & { estimated: true }) | null {
  if (!streamed.received && !streamed.cancelled) return null;
  const counted = streamed.output ? countTokens(streamed.output, model.name) : 0;
  const output = streamed.finished ? counted : Math.max(counted, heldOutput ?? 0);
  const cost = model.price && (inputTokens * worstInputRate(model.price) + output * model.price.output) / 1_000_000;
  return { input: inputTokens, output, cached: 0, ...(cost !== undefined ? { cost } : {}), estimated: true };
}
