/**
 * How tools measure their output in tokens. Declared on the ground floor so that tools/ depends
 * on this contract only; model/ implements it with the real tokenizer and the composition
 * (orchestrator/create.ts) hands it in.
 */
export interface TokenCounter {
  /** Tokens in `text`. May be an estimate for very long text, never slower than linear. */
  count(text: string): number;
  /**
   * The longest prefix of `text` of at most `max` tokens. Looks at no more than a bounded
   * window of characters per token, so a huge text costs no more than a short one.
   */
  head(text: string, max: number): string;
  /** The longest suffix of `text` of at most `max` tokens; bounded like `head`. */
  tail(text: string, max: number): string;
}
