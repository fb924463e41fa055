/**
 * The secrets the HTTP functions read (`sst secret set …`): the provider keys, and the MCP
 * servers' JSON, whose headers often hold tokens (it wins over PANTO_MCP_SERVERS when set).
 */
export const anthropicKey = new sst.Secret('AnthropicApiKey', '');
export const openaiKey = new sst.Secret('OpenAIApiKey', '');
export const mcpServers = new sst.Secret('MCPServers', '');

/** What a function that runs turns links. */
export const turnSecrets = [anthropicKey, openaiKey, mcpServers];
