/**
 * The one way out of a sandbox that allows some domains: an HTTP proxy on a Unix socket in a
 * folder of panto's, which the sandbox mounts and `socat` turns into `127.0.0.1:3128` inside
 * the command's own network namespace. It forwards `CONNECT host:port` (HTTPS, and any TCP a
 * client tunnels) and plain `http://` requests to the domains of the allow list, and answers
 * 403 to everything else. Names that resolve to loopback or link-local addresses (the host's
 * own services, cloud metadata) are refused unless the list names that address itself.
 */
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { join } from 'node:path';

/** The port inside the sandbox that `HTTP_PROXY` names. */
export const PROXY_PORT = 3128;

/**
 * Whether `host` is on the allow list: `example.com` is that name only, `*.example.com` any
 * name below it (not the name itself), an IP address only itself.
 */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  return allowed.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('*.')) return name.endsWith(rule.slice(1)) && name.length > rule.length - 1;
    return name === rule;
  });
}

/** Loopback, link-local (cloud metadata) and unspecified addresses: the host's own, never reached through a name. */
export function isHostLocal(address: string): boolean {
  if (isIP(address) === 4) return /^(127\.|169\.254\.|0\.)/.test(address);
  const lower = address.toLowerCase();
  return lower === '::1' || lower === '::' || lower.startsWith('fe80:') || lower.startsWith('::ffff:127.') || lower.startsWith('::ffff:169.254.');
}

/** The filtering proxy of one run. */
export class DomainProxy {
  readonly socketPath: string;
  readonly #server: Server;
  readonly #folder: string;
  readonly #allowed: readonly string[];

  private constructor(server: Server, folder: string, allowed: readonly string[]) {
    this.#server = server;
    this.#folder = folder;
    this.socketPath = join(folder, 'proxy.sock');
    this.#allowed = allowed;
  }

  /** Starts the proxy on a socket in a new folder under `tempDir`; `close()` removes both. */
  static async start(allowed: readonly string[], tempDir: string): Promise<DomainProxy> {
    const folder = mkdtempSync(join(tempDir, 'panto-proxy-'));
    const server = createServer();
    const proxy = new DomainProxy(server, folder, allowed);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => void proxy.#forward(request, response));
    server.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => void proxy.#tunnel(request, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(proxy.socketPath, () => resolve());
    });
    server.unref();
    return proxy;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    rmSync(this.#folder, { recursive: true, force: true });
  }

  /** The address to connect to for `host`, or why not. */
  async #resolve(host: string): Promise<{ address: string } | { refused: string }> {
    if (!domainAllowed(host, this.#allowed)) return { refused: `${host} is not on panto's allowed domains` };
    if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0) return { address: host.replace(/^\[(.*)\]$/, '$1') };
    try {
      const { address } = await lookup(host);
      if (isHostLocal(address)) return { refused: `${host} resolves to ${address}, an address of this machine` };
      return { address };
    } catch (error) {
      return { refused: `${host} cannot be resolved: ${(error as Error).message}` };
    }
  }

  async #tunnel(request: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(request.url ?? '');
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const target = await this.#resolve(match[1]!);
    if ('refused' in target) {
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\npanto sandbox: ${target.refused}\n`);
      return;
    }
    const upstream = connect(Number(match[2]), target.address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('close', () => upstream.destroy());
  }

  async #forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('panto sandbox: a proxy request needs an absolute http:// URL\n');
      return;
    }
    const target = url.protocol === 'http:' ? await this.#resolve(url.hostname) : { refused: `${url.protocol} is not proxied` };
    if ('refused' in target) {
      response.writeHead(403, { 'content-type': 'text/plain' }).end(`panto sandbox: ${target.refused}\n`);
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !/^(proxy-|connection$|keep-alive$)/i.test(name)));
    const upstream = httpRequest(
      { host: target.address, port: url.port === '' ? 80 : Number(url.port), path: `${url.pathname}${url.search}`, method: request.method ?? 'GET', headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(upstream);
  }
}
