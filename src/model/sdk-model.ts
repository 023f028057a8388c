import { PLACEHOLDER_KEY, displayURL, type FailureContext } from "./provider-errors.js";
import { preconnect } from "./preconnect.js";
import { type RequestSignal } from "./request-signal.js";

/** What every provider behind an official SDK is configured with. */
export interface SdkModelOptions {
  name: string;
  baseURL?: string;
  apiKey?: string;
  /** Per attempt: until the response starts, and then the longest silence allowed mid-stream. */
  timeoutMs?: number;
  /** Retries of a failed request before any of its response was read (the SDK's, honouring Retry-After). */
  maxRetries?: number;
  maxOutputTokens?: number;
  defaultHeaders?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_RETRIES = 3;

/** The settings a provider's model resolves from its options the same way whatever the SDK. */
export abstract class SdkModel<Options extends SdkModelOptions> {
  readonly name: string;
  protected readonly opts: Options;
  protected readonly apiKey: string | undefined;
  protected readonly timeoutMs: number;
  protected readonly maxRetries: number;

  /**
   * `keyWithoutBaseURL` is the key when the options name neither a key nor a base_url. With a
   * base_url and no key, a keyless local server or gateway gets a placeholder, never a key meant for
   * someone else.
   */
  constructor(
    opts: Options,
    private readonly defaultBaseURL: string,
    keyWithoutBaseURL: string | undefined,
  ) {
    this.name = opts.name;
    this.opts = opts;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.apiKey = opts.apiKey || (opts.baseURL ? PLACEHOLDER_KEY : keyWithoutBaseURL);
  }

  /** The endpoint as shown in messages: no credentials, no trailing slash. */
  get baseURL(): string {
    return displayURL(this.opts.baseURL ?? this.defaultBaseURL);
  }

  /** Opens the connection to the endpoint now; the first request takes it over (preconnect.ts). */
  preconnect(): void {
    preconnect(this.opts.baseURL ?? this.defaultBaseURL);
  }

  /** What the SDK client is made with, whichever SDK it is. */
  protected clientOptions() {
    return {
      apiKey: this.apiKey ?? PLACEHOLDER_KEY,
      timeout: this.timeoutMs,
      maxRetries: this.maxRetries,
      defaultHeaders: this.opts.defaultHeaders,
      // The core never writes to the terminal; the SDKs would log on the console.
      logLevel: "off" as const,
    };
  }

  /** What classifyFailure reads: this request's state, and how this provider words and reads failures. */
  protected failureContext(
    request: { model: string; attempts: number; guard: RequestSignal },
    provider: Pick<FailureContext, "sdk" | "authFailed" | "serverDetail">,
  ): FailureContext {
    return {
      ...provider,
      model: request.model,
      baseURL: this.baseURL,
      attempts: request.attempts,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      aborted: request.guard.aborted,
      idleTimedOut: request.guard.idleTimedOut,
    };
  }
}
