/**
 * A request's body as UTF-8 bytes before it reaches fetch. Given a string, undici first makes it
 * well-formed (a scan of every character for lone surrogates) and then encodes it with a
 * TextEncoder, both over the whole history on every step; Buffer.from encodes it natively in one
 * pass. The SDKs' bodies come from JSON.stringify, which escapes lone surrogates, so the bytes sent
 * are the same.
 */
function withByteBody(init: RequestInit | undefined): RequestInit | undefined {
  return typeof init?.body === "string" ? { ...init, body: Buffer.from(init.body, "utf8") } : init;
}

/**
 * fetch for the SDKs' requests, the body sent as it is, without a copy. Node's fetch copies a body
 * given as bytes (twice on Node 24) into a byte stream; asked to follow redirects (the default), it
 * also tees that stream and copies every byte again, to send the body once more for a redirect:
 * the whole history, on every step (at ~300 KB of history, ~0.5 ms a step for the tee alone).
 *
 * So the bytes go to fetch as a stream of one chunk, with their length (a content-length header,
 * not a chunked body), and with redirects refused (`redirect: "error"` and no window, the one case
 * in which fetch neither tees nor copies). Model endpoints answer without redirecting; one that
 * does redirect refuses that with "unexpected redirect" before anything of an answer is read, and
 * the request is then sent again the standard way, which follows the redirect as before. That
 * second send has the body as text: Node 20's fetch cannot send bytes again after a redirect.
 *
 * fetch reads the caller's bytes while it sends them, until they are all written; a response that
 * ends before that makes it close the connection, so once the answer has ended (or the request
 * failed) nothing reads them any more. A caller that writes over its bytes afterwards (openai.ts,
 * wire-body.ts's lent body) waits for that.
 */
export async function fetchBody(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const sent = withByteBody(init);
  // A caller that chose how redirects go gets exactly that.
  if (sent?.redirect !== undefined) return fetch(input, sent);
  try {
    return await fetch(input, streamed(sent));
  } catch (error) {
    if (!isUnexpectedRedirect(error)) throw error;
    return fetch(input, { ...init, body: asText(init?.body) });
  }
}

/** `init` with redirects refused and its bytes, if it has any, as a one-chunk stream of known length. */
function streamed(init: RequestInit | undefined): RequestInit {
  const refused: RequestInit = { ...init, redirect: "error", window: null };
  const bytes = init?.body;
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) return refused;
  const headers = new Headers(init?.headers);
  headers.set("content-length", String(bytes.length));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  // `duplex: "half"`: what fetch requires of a body given as a stream.
  return { ...refused, headers, body, duplex: "half" } as RequestInit;
}

function isUnexpectedRedirect(error: unknown): boolean {
  return error instanceof TypeError && error.cause instanceof Error && error.cause.message === "unexpected redirect";
}

function asText(body: RequestInit["body"]): RequestInit["body"] {
  return Buffer.isBuffer(body) ? body.toString("utf8") : body;
}
