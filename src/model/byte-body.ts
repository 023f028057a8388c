/**
 * A request's body as UTF-8 bytes before it reaches fetch. Given a string, undici first makes it
 * well-formed (a scan of every character for lone surrogates) and then encodes it with a
 * TextEncoder, both over the whole history on every step; Buffer.from encodes it natively in one
 * pass. The SDKs' bodies come from JSON.stringify, which escapes lone surrogates, so the bytes sent
 * are the same.
 */
export function withByteBody(init: RequestInit | undefined): RequestInit | undefined {
  return typeof init?.body === "string" ? { ...init, body: Buffer.from(init.body, "utf8") } : init;
}
