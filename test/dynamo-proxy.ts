/**
 * A TCP proxy in front of DynamoDB Local that counts what crosses it — each request's
 * operation, and the bytes DynamoDB sends back — and can take the store down and bring it
 * back: while down, every connection is dropped as soon as its request arrives (the client
 * sees `socket hang up` / ECONNRESET), after the proxy has noted which operation it was.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class DynamoProxy {
  /** `http://127.0.0.1:<port>`: point a client here. */
  readonly endpoint: string;
  /** The `X-Amz-Target` operation (`UpdateItem`, `TransactWriteItems`…) of every request dropped while down. */
  readonly dropped: string[] = [];
  /** The operation of every request passed on, in order. */
  readonly requests: string[] = [];
  /** Bytes DynamoDB answered with (headers and bodies), in all. */
  responseBytes = 0;
  /** Client connections open now, and the most open at once since the start: with keep-alive, the sockets a client's pool needed. */
  connections = 0;
  peakConnections = 0;
  /** Called with each dropped request's operation, after it was dropped. Must not throw. */
  onDrop: (operation: string) => void = () => {};
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #down = false;

  private constructor(server: Server, endpoint: string) {
    this.#server = server;
    this.endpoint = endpoint;
  }

  static async start(target: string): Promise<DynamoProxy> {
    const { hostname, port } = new URL(target);
    let proxy: DynamoProxy | undefined;
    const server = createServer((client) => {
      if (proxy === undefined) client.destroy();
      else proxy.#accept(client, hostname, Number(port));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new DynamoProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  /** Takes the store down: open connections are cut, new requests dropped. */
  down(): void {
    this.#down = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Brings the store back. */
  up(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Forgets what was counted so far. */
  resetCounts(): void {
    this.requests.length = 0;
    this.responseBytes = 0;
  }

  #accept(client: Socket, host: string, port: number): void {
    this.#sockets.add(client);
    this.connections++;
    this.peakConnections = Math.max(this.peakConnections, this.connections);
    client.on('close', () => {
      this.#sockets.delete(client);
      this.connections--;
    });
    client.on('error', () => {});
    client.once('data', (head: Buffer) => {
      if (this.#down) {
        const operation = /x-amz-target:\s*DynamoDB_\d+\.(\w+)/i.exec(head.toString('latin1'))?.[1] ?? '?';
        client.destroy();
        this.dropped.push(operation);
        this.onDrop(operation);
        return;
      }
      const upstream = connect(port, host);
      this.#sockets.add(upstream);
      upstream.on('close', () => this.#sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      const count = (chunk: Buffer): void => {
        for (const match of chunk.toString('latin1').matchAll(/x-amz-target:\s*DynamoDB_\d+\.(\w+)/gi)) this.requests.push(match[1]!);
      };
      count(head);
      client.on('data', count);
      upstream.on('data', (chunk: Buffer) => (this.responseBytes += chunk.length));
      upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }
}
