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

/**
 * Ports the Fetch standard blocks (https://fetch.spec.whatwg.org/#port-blocking): Node's fetch,
 * and so both SDKs, fail every request to them with "bad port", which no retry changes.
 */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389,
  427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666,
  6667, 6668, 6669, 6679, 6697, 10080,
]);

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
    if (FETCH_BAD_PORTS.has(n)) return { problem: `has the port ${port}, which fetch refuses to connect to (a "bad port" of the Fetch standard); use another port` };
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
