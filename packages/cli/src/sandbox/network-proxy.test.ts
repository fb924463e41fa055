import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { DomainProxy, domainAllowed, isHostLocal } from './network-proxy.js';

describe('domainAllowed', () => {
  it('matches a name exactly, and *. names below it but not the name itself', () => {
    const list = ['registry.npmjs.org', '*.github.com', '10.0.0.7'];
    expect(domainAllowed('registry.npmjs.org', list)).toBe(true);
    expect(domainAllowed('REGISTRY.npmjs.org.', list)).toBe(true);
    expect(domainAllowed('evil-registry.npmjs.org', list)).toBe(false);
    expect(domainAllowed('registry.npmjs.org.evil.com', list)).toBe(false);
    expect(domainAllowed('api.github.com', list)).toBe(true);
    expect(domainAllowed('github.com', list)).toBe(false);
    expect(domainAllowed('notgithub.com', list)).toBe(false);
    expect(domainAllowed('10.0.0.7', list)).toBe(true);
    expect(domainAllowed('10.0.0.8', list)).toBe(false);
  });
});

describe('isHostLocal', () => {
  it('is true for loopback, link-local (cloud metadata) and unspecified addresses', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '169.254.169.254', '0.0.0.0', '::1', '::', 'fe80::1', '::ffff:127.0.0.1'])
      expect(isHostLocal(address)).toBe(true);
    for (const address of ['10.0.0.1', '192.168.1.1', '93.184.216.34', '2606:4700::1111']) expect(isHostLocal(address)).toBe(false);
  });
});

describe('DomainProxy', () => {
  let upstream: Server;
  let port: number;
  let proxy: DomainProxy;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    upstream = createServer((req, res) => res.end(`upstream saw ${req.method} ${req.url}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as { port: number }).port;
    let path: string;
    ({ path, cleanup } = await tempDir());
    // An IP the list names itself is reachable even though it is this machine's: a name that resolves there is not.
    proxy = await DomainProxy.start(['127.0.0.1', 'localhost'], path);
  });
  afterAll(async () => {
    await proxy.close();
    upstream.close();
    await cleanup();
  });

  function viaProxy(options: { method: string; path: string }): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath: proxy.socketPath, ...options, headers: { host: 'proxy' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('connect', (res, socket) => {
        resolve({ status: res.statusCode ?? 0, body: '' });
        socket.destroy();
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('forwards a plain http request to an allowed host', async () => {
    expect(await viaProxy({ method: 'GET', path: `http://127.0.0.1:${port}/a?b=1` })).toEqual({ status: 200, body: 'upstream saw GET /a?b=1' });
  });

  it('tunnels CONNECT to an allowed host', async () => {
    expect((await viaProxy({ method: 'CONNECT', path: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('answers 403 for a host not on the list, and for a name that resolves to this machine', async () => {
    expect(await viaProxy({ method: 'GET', path: `http://example.com:${port}/` })).toEqual({
      status: 403,
      body: "panto sandbox: example.com is not on panto's allowed domains\n",
    });
    expect((await viaProxy({ method: 'CONNECT', path: `example.com:443` })).status).toBe(403);
    const local = await viaProxy({ method: 'GET', path: `http://localhost:${port}/` });
    expect(local.status).toBe(403);
    expect(local.body).toMatch(/localhost resolves to .*, an address of this machine/);
  });
});
