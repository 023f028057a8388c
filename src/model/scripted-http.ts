import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ScriptedErrorReply } from "./scripted.js";

/**
 * The loopback HTTP both scripted servers (scripted.ts for OpenAI, scripted-anthropic.ts for the
 * Messages API) stand on: listening, closing with connections still open, and writing an event
 * stream as a reply scripts it. What differs between them is only the protocol.
 */

export interface LoopbackServer {
  /** `http://host:port` (`https://` with `tls`), no path. */
  readonly origin: string;
  /** Connections accepted so far (TLS: handshakes completed). */
  readonly connections: number;
  /** Which connection, counted from 0, a request came on. */
  connectionOf(socket: Socket): number;
  close(): Promise<void>;
}

/** A test certificate and its key (PEM): the server speaks HTTPS. */
export interface LoopbackTls {
  key: string;
  cert: string;
}

/** Listens on loopback (a free port unless one is given); `close` also cuts connections still open. */
export async function listenLoopback(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  options: { port?: number; host?: string; tls?: LoopbackTls },
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const ids = new WeakMap<Socket, number>();
  let connections = 0;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void handle(req, res);
  };
  // node:https (and TLS with it) is loaded only for a server that speaks it: the demo's does not.
  const server = options.tls ? (await import("node:https")).createServer({ key: options.tls.key, cert: options.tls.cert }, onRequest) : http.createServer(onRequest);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on(options.tls ? "secureConnection" : "connection", (socket: Socket) => ids.set(socket, connections++));
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    origin: `${options.tls ? "https" : "http"}://${host}:${address.port}`,
    get connections() {
      return connections;
    },
    connectionOf: (socket) => ids.get(socket) ?? -1,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Adds a request to the record, stamping when its response ends (or the client goes away). */
export function record<R extends { finishedAt?: number; finishedHr?: number }>(requests: R[], recorded: R, res: http.ServerResponse): R {
  requests.push(recorded);
  // The last byte written (high resolution, for bench overhead), then the connection's end.
  res.on("finish", () => {
    recorded.finishedHr ??= performance.now();
  });
  res.on("close", () => {
    recorded.finishedAt ??= Date.now();
  });
  return recorded;
}

/** The script's reply to a request; a script that throws answers with a 500 that says so. */
export async function askScript<Req, Reply>(
  handler: (request: Req) => Reply | Promise<Reply>,
  request: Req,
): Promise<Reply | ScriptedErrorReply> {
  try {
    return await handler(request);
  } catch (error) {
    return { kind: "error", status: 500, message: `script handler threw: ${String(error)}` };
  }
}

export interface StreamTiming {
  /** Destroy the socket after this many frames. */
  cutAfterChunks?: number;
  /** Delay between frames, ms. */
  chunkDelayMs?: number;
}

/** Writes an event stream frame by frame, then `last` — or, where the reply scripts a cut, cuts the socket. */
export async function writeEventStream(res: http.ServerResponse, frames: string[], timing: StreamTiming, last?: string): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const cut = timing.cutAfterChunks;
  let sent = 0;
  for (const frame of frames) {
    if (res.destroyed) return;
    if (cut !== undefined && sent >= cut) {
      res.socket?.destroy();
      return;
    }
    if (cut !== undefined) {
      // Wait until the bytes reach the socket: destroying it with writes still buffered would
      // drop them, and the cut would happen before the response even started.
      await new Promise<void>((resolve) => res.write(frame, () => resolve()));
    } else {
      res.write(frame);
    }
    sent++;
    if (timing.chunkDelayMs) await sleep(timing.chunkDelayMs);
  }
  if (cut !== undefined && sent >= cut) {
    res.socket?.destroy();
    return;
  }
  res.end(last);
}

export function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

export function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(payload));
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
