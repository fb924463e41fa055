import { createHash } from 'node:crypto';

/** What model APIs accept as a tool name (Anthropic and OpenAI alike). */
export const TOOL_NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;
const INVALID = /[^a-zA-Z0-9_-]/g;

/**
 * The name a model sees for an MCP server's tool: `mcp__<server>__<tool>`. MCP allows
 * characters model APIs refuse (`.`, `/`, spaces): each becomes `_`. A name longer than 64
 * characters keeps its start and ends in `_` and 8 hex digits of a hash of the server and
 * tool, so two long names never collapse into one; `hashed: true` asks for that ending
 * whatever the length (to tell apart two tools whose cleaned names clash). The same inputs
 * always give the same name; map it back with the table the names were made for.
 *
 * @example
 * mcpToolName('everything', 'get-sum'); // 'mcp__everything__get-sum'
 * mcpToolName('my.server', 'files/read'); // 'mcp__my_server__files_read'
 */
export function mcpToolName(server: string, tool: string, options: { hashed?: boolean } = {}): string {
  const plain = `mcp__${server.replace(INVALID, '_')}__${tool.replace(INVALID, '_')}`;
  if (!options.hashed && plain.length <= MAX_LENGTH) return plain;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${plain.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}
