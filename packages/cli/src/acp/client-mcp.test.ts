import { describe, expect, it } from 'vitest';
import { clientMCPServers } from './client-mcp.js';

// biome-ignore lint/suspicious/noTemplateCurlyInString: the point — a value that looks like a variable is passed as it is, not expanded.
const UNEXPANDED = '${NOT_EXPANDED}';

describe("an ACP client's MCP servers", () => {
  it('become stdio and http configs, values taken as they are', () => {
    expect(
      clientMCPServers([
        { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/w'], env: [{ name: 'TOKEN', value: UNEXPANDED }] },
        { type: 'http', name: 'docs', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer t' }] },
      ]),
    ).toEqual({
      servers: [
        { type: 'stdio', name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/w'], env: { TOKEN: UNEXPANDED }, source: 'the ACP client' },
        { type: 'http', name: 'docs', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' }, source: 'the ACP client' },
      ],
    });
  });

  it('refuses the SSE transport, two servers of one name, and a bad URL', () => {
    expect(clientMCPServers([{ type: 'sse', name: 'old', url: 'https://x/sse', headers: [] }])).toEqual({
      problem: 'MCP server "old": panto does not speak the sse transport (it takes stdio and http)',
    });
    const stdio = { name: 'a', command: 'x', args: [], env: [] };
    expect(clientMCPServers([stdio, stdio])).toEqual({ problem: 'two MCP servers are named "a"' });
    expect(clientMCPServers([{ type: 'http', name: 'f', url: 'file:///etc/passwd', headers: [] }])).toEqual({
      problem: 'the ACP client: server "f": url must be http(s), not file:',
    });
  });

  it('takes a server named __proto__ as a name like any other', () => {
    expect(clientMCPServers([{ name: '__proto__', command: 'x', args: [], env: [] }])).toMatchObject({ servers: [{ name: '__proto__', command: 'x' }] });
  });
});
