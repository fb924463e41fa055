/**
 * `PANTO_MCP_APPROVALS`: which MCP tools' calls wait for a person's decision. The JSON of an
 * object, one key per server of `PANTO_MCP_SERVERS`:
 *
 * ```json
 * { "docs": "never", "shop": { "search": "never", "refund": "ask" }, "mail": { "*": "ask", "list": "never" } }
 * ```
 *
 * A server's value is `"ask"` or `"never"` for all its tools, or an object of its tools' own
 * names (as the server lists them) to `"ask"` / `"never"`, with `"*"` for the tools it does
 * not name. A tool no rule names asks unless its server marks it `readOnlyHint: true`.
 * Read by config.ts (the one reader of the environment); applied in agent/tool-approvals.ts.
 */

/** A rule: every call asks, or none does. */
export type ApprovalRule = 'ask' | 'never';

/** The operator's rules for one server: its tools by name, and `*` for the others. */
export interface ServerApprovalRules {
  tools: { readonly [tool: string]: ApprovalRule };
  /** The rule for the tools `tools` does not name; absent: the tool's own annotations decide. */
  others?: ApprovalRule;
}

/** The rules of every server that has some, by server name. */
export type MCPApprovalRules = { readonly [server: string]: ServerApprovalRules };

/**
 * Reads `PANTO_MCP_APPROVALS` for `servers` (their names). Never throws, and fails closed: a
 * value that is not a JSON object makes every MCP tool ask, and so does a server entry that
 * is not a rule or an object of rules (for that server), each with a problem to report; a
 * server that is not configured is a problem and nothing else.
 */
export function parseMCPApprovals(
  text: string | undefined,
  servers: readonly string[],
  source = 'PANTO_MCP_APPROVALS',
): { rules: MCPApprovalRules; problems: string[] } {
  if (text === undefined || text.trim() === '') return { rules: {}, problems: [] };
  const everyToolAsks = (why: string): { rules: MCPApprovalRules; problems: string[] } => ({
    rules: Object.fromEntries(servers.map((server) => [server, { tools: {}, others: 'ask' }])),
    problems: [`${source}: ${why}; every MCP tool asks for approval until it is fixed`],
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: reported as a problem, with every tool asking (fail closed).
    return everyToolAsks('not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return everyToolAsks('not a JSON object of server names');
  const rules: { [server: string]: ServerApprovalRules } = {};
  const problems: string[] = [];
  for (const [server, entry] of Object.entries(value)) {
    if (!servers.includes(server)) {
      problems.push(`${source}: "${server}" is not a server of PANTO_MCP_SERVERS; its rules are ignored`);
      continue;
    }
    const parsed = serverRules(entry);
    if (parsed === undefined) {
      problems.push(`${source}: the rules of "${server}" must be "ask", "never" or an object of tool names to "ask" / "never"; every tool of "${server}" asks`);
      rules[server] = { tools: {}, others: 'ask' };
    } else {
      rules[server] = parsed;
    }
  }
  return { rules, problems };
}

function isRule(value: unknown): value is ApprovalRule {
  return value === 'ask' || value === 'never';
}

function serverRules(entry: unknown): ServerApprovalRules | undefined {
  if (isRule(entry)) return { tools: {}, others: entry };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const tools: { [tool: string]: ApprovalRule } = {};
  let others: ApprovalRule | undefined;
  for (const [tool, rule] of Object.entries(entry)) {
    if (!isRule(rule)) return undefined;
    if (tool === '*') others = rule;
    else tools[tool] = rule;
  }
  return others === undefined ? { tools } : { tools, others };
}
