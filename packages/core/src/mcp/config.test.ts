// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are of mcp.json's ${NAME} expansion, written as it is
import { describe, expect, it } from 'vitest';
import { displayURL, mergeMCPConfigs, parseMCPConfig } from './config.js';

describe('parseMCPConfig', () => {
  it('reads stdio and Streamable HTTP servers in the shape other agents use', () => {
    const json = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { DEBUG: '1' } },
        docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        typed: { type: 'http', url: 'http://127.0.0.1:3001/mcp' },
        bare: { command: 'server' },
      },
    });
    expect(parseMCPConfig(json, 'mcp.json')).toEqual({
      servers: [
        {
          type: 'stdio',
          name: 'files',
          command: 'npx',
          args: ['-y', 'server-filesystem', '.'],
          env: { DEBUG: '1' },
          source: 'mcp.json',
        },
        {
          type: 'http',
          name: 'docs',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer t' },
          source: 'mcp.json',
        },
        { type: 'http', name: 'typed', url: 'http://127.0.0.1:3001/mcp', headers: {}, source: 'mcp.json' },
        { type: 'stdio', name: 'bare', command: 'server', args: [], env: {}, source: 'mcp.json' },
      ],
      problems: [],
    });
  });

  it('leaves out each bad server with a problem naming the file and the server, and keeps the rest', () => {
    const { servers, problems } = parseMCPConfig(
      {
        mcpServers: {
          good: { command: 'ok' },
          both: { command: 'x', url: 'http://a/' },
          neither: {},
          args: { command: 'x', args: 'one two' },
          env: { command: 'x', env: { N: 1 } },
          ftp: { url: 'ftp://host/mcp' },
          sse: { type: 'sse', url: 'http://host/sse' },
          off: { command: 'x', disabled: true },
          list: ['x'],
        },
      },
      'p/mcp.json',
    );
    expect(servers.map((server) => server.name)).toEqual(['good']);
    expect(problems).toEqual([
      'p/mcp.json: server "both": give either command (stdio) or url (Streamable HTTP), not both',
      'p/mcp.json: server "neither": needs a command (stdio) or a url (Streamable HTTP)',
      'p/mcp.json: server "args": args must be an array of strings',
      'p/mcp.json: server "env": env must be an object of strings',
      'p/mcp.json: server "ftp": url must be http(s), not ftp:',
      'p/mcp.json: server "sse": the SSE transport is deprecated and not supported; use the server\'s Streamable HTTP endpoint',
      'p/mcp.json: server "list": expected an object',
    ]);
  });

  it('reports a file that is not JSON, or not { mcpServers }, as one problem and no servers', () => {
    expect(parseMCPConfig('{ "mcpServers": ', 'a.json').problems[0]).toMatch(/^a\.json: not JSON: /);
    expect(parseMCPConfig({ servers: {} }, 'b.json')).toEqual({
      servers: [],
      problems: ['b.json: expected { "mcpServers": { "<name>": { "command", "args", "env" } | { "url", "headers" } } }'],
    });
  });

  it('refuses stdio servers where only Streamable HTTP can run (the service)', () => {
    const parsed = parseMCPConfig({ mcpServers: { local: { command: 'x' }, remote: { url: 'https://r/mcp' } } }, 'PANTO_MCP_SERVERS', {
      transports: ['http'],
    });
    expect(parsed.servers.map((server) => server.name)).toEqual(['remote']);
    expect(parsed.problems).toEqual(['PANTO_MCP_SERVERS: server "local": stdio servers (command) cannot run here; give a Streamable HTTP url']);
  });

  it('expands ${NAME} and ${NAME:-default} from the environment it is given, and leaves out a server whose variable is unset', () => {
    const parsed = parseMCPConfig(
      {
        mcpServers: {
          gh: { url: '${GH_URL:-https://api.example.com/mcp}', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
          local: { command: '${HOME}/bin/server', args: ['--root', '${PROJECT:-.}'], env: { KEY: '${KEY}' } },
          missing: { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${NOT_SET}' } },
        },
      },
      'mcp.json',
      { env: { GH_TOKEN: 'ghp_1', HOME: '/home/ada', KEY: 'k' } },
    );
    expect(parsed.servers).toEqual([
      {
        type: 'http',
        name: 'gh',
        url: 'https://api.example.com/mcp',
        headers: { Authorization: 'Bearer ghp_1' },
        source: 'mcp.json',
      },
      {
        type: 'stdio',
        name: 'local',
        command: '/home/ada/bin/server',
        args: ['--root', '.'],
        env: { KEY: 'k' },
        source: 'mcp.json',
      },
    ]);
    expect(parsed.problems).toEqual(['mcp.json: server "missing": uses ${NOT_SET}, which is not set']);
    // Without an environment nothing is expanded.
    expect(parseMCPConfig({ mcpServers: { s: { command: '${X}' } } }, 'm').servers[0]).toMatchObject({
      command: '${X}',
    });
  });
});

describe('mergeMCPConfigs', () => {
  it('lets a later file replace a server of the same name, and keeps every problem', () => {
    const home = parseMCPConfig({ mcpServers: { a: { command: 'home-a' }, b: { command: 'home-b' }, bad: {} } }, 'home');
    const project = parseMCPConfig({ mcpServers: { a: { command: 'project-a' } } }, 'project');
    const merged = mergeMCPConfigs(home, project);
    expect(merged.servers.map((server) => [server.name, server.source])).toEqual([
      ['a', 'project'],
      ['b', 'home'],
    ]);
    expect(merged.problems).toHaveLength(1);
  });
});

describe('displayURL', () => {
  it('shows a URL without credentials, query or fragment, which may hold secrets', () => {
    expect(displayURL('https://user:pw@mcp.example.com:8443/v1/mcp?api_key=s3cret#x')).toBe('https://mcp.example.com:8443/v1/mcp');
  });
});
