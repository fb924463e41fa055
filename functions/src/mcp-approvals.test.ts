import { describe, expect, it } from 'vitest';
import type { MCPTool } from '@panto/core/mcp';
import { approvalReason } from './agent/tool-approvals.js';
import { parseMCPApprovals } from './mcp-approvals.js';

const SERVERS = ['docs', 'shop', 'mail'];

function tool(server: string, name: string, readOnlyHint?: boolean): MCPTool {
  return {
    name: `mcp__${server}__${name}`,
    description: name,
    input_schema: { type: 'object' },
    mcp: { server, tool: name, annotations: readOnlyHint === undefined ? {} : { readOnlyHint } },
    execute: async () => 'ok',
  };
}

describe('PANTO_MCP_APPROVALS', () => {
  it('reads a rule per server, a rule per tool, and "*" for the tools a server entry does not name', () => {
    const { rules, problems } = parseMCPApprovals('{"docs":"never","shop":{"search":"never","refund":"ask"},"mail":{"*":"ask","list":"never"}}', SERVERS);
    expect(problems).toEqual([]);
    expect(rules).toEqual({
      docs: { tools: {}, others: 'never' },
      shop: { tools: { search: 'never', refund: 'ask' } },
      mail: { tools: { list: 'never' }, others: 'ask' },
    });
  });

  it('asks by default unless the server marks the tool read-only; the operator’s rules win over the annotations either way', () => {
    const { rules } = parseMCPApprovals('{"docs":"never","shop":{"search":"never","stock":"ask"},"mail":{"*":"ask","list":"never"}}', SERVERS);
    expect(approvalReason(tool('shop', 'buy'), rules)).toBe('the MCP server "shop" does not mark "buy" as read-only, so it may change something');
    expect(approvalReason(tool('shop', 'buy', false), rules)).toMatch(/does not mark "buy" as read-only/);
    expect(approvalReason(tool('shop', 'stock', true), rules)).toBe('the operator asks for approval of every call of "stock" (MCP server "shop")');
    expect(approvalReason(tool('shop', 'search'), rules)).toBeUndefined();
    expect(approvalReason(tool('shop', 'catalog', true), rules)).toBeUndefined();
    expect(approvalReason(tool('docs', 'delete'), rules)).toBeUndefined();
    expect(approvalReason(tool('mail', 'send', true), rules)).toBe('the operator asks for approval of every tool of the MCP server "mail"');
    expect(approvalReason(tool('mail', 'list'), rules)).toBeUndefined();
    // A tool named like an Object.prototype member is no rule of its own.
    expect(approvalReason(tool('shop', 'constructor'), rules)).toMatch(/does not mark "constructor" as read-only/);
  });

  it('fails closed: a value that is not JSON, or not an object, makes every tool of every server ask, and says so', () => {
    for (const text of ['{not json', '["docs"]', '"never"']) {
      const { rules, problems } = parseMCPApprovals(text, SERVERS);
      expect(problems).toEqual([expect.stringMatching(/^PANTO_MCP_APPROVALS: .*every MCP tool asks for approval until it is fixed$/)]);
      for (const server of SERVERS) expect(approvalReason(tool(server, 'read', true), rules)).toMatch(/operator asks/);
    }
  });

  it('fails closed per server for a malformed entry, and ignores (reporting it) a server that is not configured', () => {
    const { rules, problems } = parseMCPApprovals('{"shop":{"search":"sometimes"},"docs":"never","typo":"never"}', SERVERS);
    expect(problems).toEqual([
      'PANTO_MCP_APPROVALS: the rules of "shop" must be "ask", "never" or an object of tool names to "ask" / "never"; every tool of "shop" asks',
      'PANTO_MCP_APPROVALS: "typo" is not a server of PANTO_MCP_SERVERS; its rules are ignored',
    ]);
    expect(approvalReason(tool('shop', 'search', true), rules)).toMatch(/operator asks/);
    expect(approvalReason(tool('docs', 'anything'), rules)).toBeUndefined();
  });

  it('is no rule at all when unset or blank', () => {
    expect(parseMCPApprovals(undefined, SERVERS)).toEqual({ rules: {}, problems: [] });
    expect(parseMCPApprovals('  ', SERVERS)).toEqual({ rules: {}, problems: [] });
  });
});
