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
 * fetch for the SDKs' requests, with the body as bytes (withByteBody). Node's fetch, asked to
 * follow redirects (the default), readies the body to be sent again for one: it tees the body's
 * stream and copies every byte of it, on every request, the whole history each step (at ~300 KB of
 * history, ~0.5 ms a step). Model endpoints answer without redirecting, so the request first goes
 * out with redirects refused (`redirect: "error"` and no window, the one case in which fetch
 * neither tees nor copies); an endpoint that does redirect refuses that with "unexpected
 * redirect" before anything of an answer is read, and the request is then sent again the standard
 * way, which follows the redirect as before. The second send has the body as text: Node 20's fetch
 * cannot send bytes again after a redirect (their buffer was handed to the first send).
 */
export async function fetchBody(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const sent = withByteBody(init);
  // A caller that chose how redirects go gets exactly that.
  if (sent?.redirect !== undefined) return fetch(input, sent);
  try {
    return await fetch(input, { ...sent, redirect: "error", window: null });
  } catch (error) {
    if (!isUnexpectedRedirect(error)) throw error;
    return fetch(input, { ...init, body: asText(init?.body) });
  }
}

function isUnexpectedRedirect(error: unknown): boolean {
  return error instanceof TypeError && error.cause instanceof Error && error.cause.message === "unexpected redirect";
}

function asText(body: RequestInit["body"]): RequestInit["body"] {
  return Buffer.isBuffer(body) ? body.toString("utf8") : body;
}
