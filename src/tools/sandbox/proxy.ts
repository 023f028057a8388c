import http from "node:http";
import net from "node:net";

/**
 * The HTTP proxy sandboxed commands reach the network through when `sandbox.network.allow` lists
 * hosts. It listens on a Unix socket that is mounted into the sandbox (which has no network of its
 * own) and forwards only to allowed hosts and ports: CONNECT for HTTPS and anything tunnelled,
 * absolute-URI requests for plain HTTP. Everything else gets 403 with the reason.
 */
export class FilteringProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly allowed: (host: string, port: number) => boolean,
  ) {}

  static listen(socketPath: string, allow: readonly string[]): Promise<FilteringProxy> {
    const allowed = hostMatcher(allow);
    const server = http.createServer();
    const proxy = new FilteringProxy(server, allowed);
    server.on("connection", (socket: net.Socket) => {
      proxy.sockets.add(socket);
      socket.on("close", () => proxy.sockets.delete(socket));
    });
    server.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => proxy.tunnel(req, socket, head));
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => proxy.forward(req, res));
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve(proxy);
      });
    });
  }

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    client.on("error", () => {});
    const target = parseAuthority(req.url ?? "");
    if (!target || !this.allowed(target.host, target.port)) {
      client.end(refusal(target ? `${target.host}:${target.port}` : (req.url ?? "")));
      return;
    }
    const upstream = net.connect(target.port, target.host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on("close", () => this.sockets.delete(upstream));
    upstream.on("error", (error) => client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\norca sandbox proxy: ${error.message}\n`));
    client.on("close", () => upstream.destroy());
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("orca sandbox proxy: expected an absolute URL\n");
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port || 80);
    if (url.protocol !== "http:" || !this.allowed(host, port)) {
      res.writeHead(403).end(`orca sandbox proxy: ${host}:${port} is not in sandbox.network.allow\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = http.request({ host, port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on("error", (error) => {
      // A reply that is no HTTP leaves its socket open otherwise.
      upstream.destroy();
      if (!res.headersSent) res.writeHead(502);
      res.end(`orca sandbox proxy: ${error.message}\n`);
    });
    req.pipe(upstream);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function refusal(host: string): string {
  return `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\norca sandbox proxy: ${host} is not in sandbox.network.allow\n`;
}

function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1]!, port } : null;
}

/** The ports an allow-list entry without one opens: HTTPS and HTTP. */
export const DEFAULT_PORTS: readonly number[] = [443, 80];

/**
 * `example.com` matches itself, `*.example.com` its subdomains (case does not matter), each on
 * ports 443 and 80; `example.com:8443` (or `[::1]:8080`) on that port only.
 */
export function hostMatcher(allow: readonly string[]): (host: string, port: number) => boolean {
  const exact = new Map<string, Set<number>>();
  const suffixes: { suffix: string; ports: Set<number> }[] = [];
  for (const entry of allow) {
    const parsed = allowEntry(entry);
    if (!parsed) continue;
    if (parsed.host.startsWith("*.")) suffixes.push({ suffix: parsed.host.slice(1), ports: new Set(parsed.ports) });
    else {
      const ports = exact.get(parsed.host) ?? new Set<number>();
      for (const port of parsed.ports) ports.add(port);
      exact.set(parsed.host, ports);
    }
  }
  return (host, port) => {
    const h = host.toLowerCase().replace(/\.$/, "");
    return exact.get(h)?.has(port) === true || suffixes.some((s) => h.endsWith(s.suffix) && h.length > s.suffix.length && s.ports.has(port));
  };
}

/** `host`, `*.host`, `host:port`, `[v6]`, `[v6]:port`: the host (lower case, no brackets) and its ports. */
function allowEntry(entry: string): { host: string; ports: readonly number[] } | null {
  const e = entry.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s[\]]+))(?::(\d{1,5}))?$/.exec(e);
  if (!m) return null;
  const host = (m[1] ?? m[2]!).replace(/\.$/, "");
  if (m[3] === undefined) return { host, ports: DEFAULT_PORTS };
  const port = Number(m[3]);
  return port > 0 && port < 65536 ? { host, ports: [port] } : null;
}
