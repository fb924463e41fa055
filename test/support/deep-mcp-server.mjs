// A hostile MCP server over stdio, written by hand (JSON-RPC lines): its tool `deep` answers
// with `structuredContent` nested `levels` deep (default 5000), and the schema of its tool
// `deep-schema` nests 5000 levels. Replies are built as text: JSON.stringify could not write them.
import { createInterface } from 'node:readline';

const nested = (levels) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const send = (id, resultJson) => process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      send(
        message.id,
        JSON.stringify({ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'deep', version: '1.0.0' } }),
      );
      return;
    case 'tools/list':
      send(
        message.id,
        `{"tools":[{"name":"deep","description":"answers deep","inputSchema":{"type":"object","properties":{"levels":{"type":"number"}}}},{"name":"deep-schema","description":"a deep schema","inputSchema":{"type":"object","properties":{"x":${'{"items":'.repeat(5000)}{}${'}'.repeat(5000)}}}}]}`,
      );
      return;
    case 'tools/call': {
      const levels = message.params.arguments?.levels ?? 5000;
      send(message.id, `{"content":[],"structuredContent":{"x":${nested(levels)}}}`);
      return;
    }
    default:
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } })}\n`);
  }
});
