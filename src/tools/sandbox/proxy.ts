import http from "node:http";
import net from "node:net";

/**
 * The HTTP proxy sandboxed commands reach the network through when `sandbox.network.allow` lists
 * hosts. It listens on a Unix socket that is mounted into the sandbox (which has no network of its
 * own) and forwards only to allowed hosts: CONNECT for HTTPS and anything tunnelled, absolute-URI
 * requests for plain HTTP. Everything else gets 403 with the reason.
 */
export class FilteringProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly allowed: (host: string) => boolean,
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
    if (!target || !this.allowed(target.host)) {
      client.end(refusal(target?.host ?? req.url ?? ""));
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
    if (url.protocol !== "http:" || !this.allowed(host)) {
      res.writeHead(403).end(`orca sandbox proxy: ${host} is not in sandbox.network.allow\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = http.request({ host, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on("error", (error) => {
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

/** `example.com` matches itself; `*.example.com` matches its subdomains. Case does not matter. */
export function hostMatcher(allow: readonly string[]): (host: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of allow) {
    const e = entry.trim().toLowerCase();
    if (e.startsWith("*.")) suffixes.push(e.slice(1));
    else if (e) exact.add(e);
  }
  return (host) => {
    const h = host.toLowerCase().replace(/\.$/, "");
    return exact.has(h) || suffixes.some((s) => h.endsWith(s) && h.length > s.length);
  };
}
