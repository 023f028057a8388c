import { createRequire } from "node:module";
import net from "node:net";
import type tls from "node:tls";

/**
 * Opens the connection to a provider (TCP, and TLS for https) at start, while orca loads the rest
 * of what the first request needs; the first request to that origin then takes the open socket
 * instead of dialling. Nothing is sent on it before that request: a provider sees a connection,
 * never a request it would bill or log.
 *
 * The hand-over goes through Node's own fetch (undici): its global dispatcher is an undici Agent,
 * and an Agent takes a `connect` function that gives it each new socket. Once Node's fetch has
 * loaded, `usePreconnected` puts an Agent of that same class with this module's `connect` in its
 * place — only when what is there is Node's default Agent (a proxy agent, NODE_USE_ENV_PROXY's or
 * a user's, stays). `connect` dials as undici's own connector does (same TLS options, ALPN
 * http/1.1, TCP keep-alive and no-delay, a 10 s connect timeout, TLS sessions kept for resumption);
 * a kept socket that failed, closed or waited more than WARM_MS is dropped and a new one dialled.
 */

type ConnectCallback = (error: Error | null, socket: net.Socket | null) => void;

/** What undici's Client passes its connector. */
interface ConnectOptions {
  protocol: string;
  hostname: string;
  host?: string;
  port?: string | number;
  servername?: string | null;
  localAddress?: string | null;
  httpSocket?: net.Socket;
}

interface Dialled {
  socket: net.Socket;
  /** Resolves when the socket is connected (TLS done), rejects when it failed. */
  connected: Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** A kept socket older than this is not handed over: servers close connections that carry nothing. */
const WARM_MS = 30_000;
const MAX_TLS_SESSIONS = 100;
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

const warm = new Map<string, Dialled & { openedAt: number; opening: boolean }>();
const tlsSessions = new Map<string, Buffer>();
let installed = false;

// node:tls is loaded when an https connection is first dialled, as undici does: importing it with
// the bundle cost every start ~20 ms (more on Node 24), endpoints over plain http included.
let tlsModule: typeof tls | undefined;
const loadTls = (): typeof tls => (tlsModule ??= createRequire(import.meta.url)("node:tls") as typeof tls);

function defaultPort(protocol: string): number {
  return protocol === "https:" ? 443 : 80;
}

function originKey(protocol: string, hostname: string, port: string | number | undefined): string {
  return `${protocol}//${hostname}:${Number(port) || defaultPort(protocol)}`;
}

function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

function dial(o: ConnectOptions): Dialled {
  const host = bareHost(o.hostname);
  const port = Number(o.port) || defaultPort(o.protocol);
  let socket: net.Socket;
  let event: "secureConnect" | "connect";
  if (o.protocol === "https:") {
    const servername = o.servername || (net.isIP(host) ? undefined : host);
    const sessionKey = servername ?? host;
    // localAddress and highWaterMark reach the socket underneath, as in undici's connector.
    const options = {
      host,
      port,
      servername,
      session: tlsSessions.get(sessionKey),
      localAddress: o.localAddress ?? undefined,
      ALPNProtocols: ["http/1.1"],
      socket: o.httpSocket,
      highWaterMark: 16_384,
    };
    const tlsSocket = loadTls().connect(options as tls.ConnectionOptions);
    tlsSocket.on("session", (session: Buffer) => {
      tlsSessions.delete(sessionKey);
      tlsSessions.set(sessionKey, session);
      if (tlsSessions.size > MAX_TLS_SESSIONS) tlsSessions.delete(tlsSessions.keys().next().value!);
    });
    socket = tlsSocket;
    event = "secureConnect";
  } else {
    const options = { host, port, localAddress: o.localAddress ?? undefined, highWaterMark: 64 * 1024 };
    socket = net.connect(options as net.NetConnectOpts);
    event = "connect";
  }
  socket.setKeepAlive(true, 60_000);
  socket.setNoDelay(true);
  const connected = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`connect timeout (${host}:${port}, ${CONNECT_TIMEOUT_MS} ms)`), { code: "UND_ERR_CONNECT_TIMEOUT" });
      socket.destroy(error);
    }, CONNECT_TIMEOUT_MS);
    timer.unref();
    socket.once(event, () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return { socket, connected };
}

function proxyInEnv(protocol: string): boolean {
  const names = protocol === "https:" ? ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] : ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];
  return names.some((name) => !!process.env[name]);
}

/** Starts connecting to `baseURL`'s origin, once per origin; never fails (a failure is a lost head start). */
export function preconnect(baseURL: string): void {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return;
  // A proxy in the environment (Node's fetch uses it under NODE_USE_ENV_PROXY): a direct dial
  // would reach round it, and its socket would never be the request's anyway.
  if (proxyInEnv(url.protocol)) return;
  const key = originKey(url.protocol, url.hostname, url.port);
  if (warm.has(key)) return;
  const dialled = dial({ protocol: url.protocol, hostname: url.hostname, port: url.port });
  // Nothing waits on it until a request takes it: it must not keep a finished run alive.
  dialled.socket.unref();
  dialled.socket.on("error", () => {});
  const openedAt = performance.now();
  const entry = { ...dialled, openedAt, opening: true };
  dialled.connected.then(
    () => (entry.opening = false),
    () => {
      entry.opening = false;
      warm.delete(key);
    },
  );
  warm.set(key, entry);
  setTimeout(() => {
    if (warm.get(key)?.openedAt !== openedAt) return;
    warm.delete(key);
    dialled.socket.destroy();
  }, WARM_MS).unref();
}

/**
 * Lets the connections being opened move on: two turns of the event loop, so that Node polls for
 * I/O in between, when one is still opening; at once otherwise. Start-up is a chain of promise
 * continuations that never lets the loop poll, and a socket dialled at its start went no further
 * than the first step of its handshake (or not even its \`connect\`: Node issues it on a later tick)
 * until the first request itself waited: the round trips preconnect was for were paid after all
 * the CPU of the start instead of during it. Called at the start's seams (orchestrator/create.ts).
 */
export async function letConnectionsOpen(): Promise<void> {
  if (![...warm.values()].some((d) => d.opening)) return;
  // An immediate set from a poll callback, or from the check phase, runs before or after the
  // poll that would see the socket's progress: the second one comes after at least one poll.
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** undici's connector: the kept socket for the origin if it is still good, else a new one. */
function connect(options: ConnectOptions, callback: ConnectCallback): void {
  const fresh = () => {
    const dialled = dial(options);
    dialled.connected.then(
      () => callback(null, dialled.socket),
      (error: Error) => callback(error, null),
    );
  };
  const key = originKey(options.protocol, options.hostname, options.port);
  const kept = options.httpSocket ? undefined : warm.get(key);
  if (!kept) return fresh();
  warm.delete(key);
  kept.connected.then(
    () => {
      const s = kept.socket;
      if (s.destroyed || !s.writable || s.readableEnded || performance.now() - kept.openedAt > WARM_MS) {
        s.destroy();
        return fresh();
      }
      s.ref();
      callback(null, s);
    },
    () => fresh(),
  );
}

interface AgentClass {
  new (options: { connect: typeof connect }): object;
}

/**
 * After Node's fetch has loaded: its requests take the kept sockets from now on. Does nothing when
 * nothing was preconnected, or the dispatcher in place is not Node's default Agent.
 */
export function usePreconnected(): void {
  if (installed || warm.size === 0) return;
  const holder = globalThis as unknown as Record<symbol, { constructor?: AgentClass } | undefined>;
  const current = holder[GLOBAL_DISPATCHER];
  const Agent = current?.constructor;
  if (!Agent || Agent.name !== "Agent") return;
  holder[GLOBAL_DISPATCHER] = new Agent({ connect }) as { constructor?: AgentClass };
  installed = true;
}
