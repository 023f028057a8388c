/**
 * A model endpoint is checked when orca reads it, not when the first request fails: the SDK would
 * retry "localhost:11434" four times and then say "unknown scheme".
 */

export interface BaseUrlProblem {
  /** What is wrong, without the value's name: `has no scheme (http:// or https://)`. */
  problem: string;
  /** The URL the user most likely meant, when there is an obvious one. */
  suggestion?: string;
}

const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|[^/:]+\.local)(:|\/|$)/i;

/** Null when `value` can be an OpenAI-compatible base URL; else what is wrong with it. */
export function checkBaseUrl(value: string): BaseUrlProblem | null {
  const text = value.trim();
  if (!text) return { problem: "is empty" };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (!scheme) {
    // "localhost:11434", "api.example.com/v1": a host without its scheme.
    const bare = text.replace(/^\/+/, "");
    const looksLikeHost = /^[\w.-]+(:\d+)?(\/|$)|^\[[0-9a-f:]+\](:\d+)?(\/|$)/i.test(bare);
    if (!looksLikeHost) return { problem: "is not a URL (expected http://host:port/v1)" };
    const withScheme = `${LOCAL_HOST.test(bare) ? "http" : "https"}://${bare}`;
    return { problem: "has no scheme (http:// or https://)", suggestion: withPath(withScheme) };
  }
  if (!/^https?$/i.test(scheme)) return { problem: `has the scheme ${scheme}://; a model endpoint is http:// or https://` };
  const port = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/?#]*):([^/?#]*)/i.exec(text)?.[1];
  if (port !== undefined && port !== "") {
    if (!/^\d+$/.test(port)) return { problem: `has the port "${port}"; a port is a number from 1 to 65535` };
    const n = Number(port);
    if (n < 1 || n > 65535) return { problem: `has the port ${port}; a port is a number from 1 to 65535` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: "is not a valid URL (expected http://host:port/v1)" };
  }
  if (!url.hostname) return { problem: "has no host (expected http://host:port/v1)" };
  return null;
}

/** One line naming the value: `--base-url "localhost:11434" has no scheme …; did you mean …?` */
export function describeBaseUrlProblem(name: string, value: string, problem: BaseUrlProblem): string {
  const hint = problem.suggestion ? `; did you mean ${name.startsWith("--") ? `${name} ` : ""}${problem.suggestion}?` : "";
  return `${name} ${JSON.stringify(value)} ${problem.problem}${hint}`;
}

/** OpenAI-compatible servers (Ollama, vLLM, LM Studio) serve under /v1: suggest it when no path was given. */
function withPath(url: string): string {
  return /^[a-z]+:\/\/[^/]+\/?$/i.test(url) ? `${url.replace(/\/$/, "")}/v1` : url;
}
