/**
 * Which of the service's tools ask for approval, and why: an MCP tool asks unless the
 * operator's rules (`PANTO_MCP_APPROVALS`) say it never does, or — when no rule names it —
 * its server marks it `readOnlyHint: true`. `current_time` and the service's other built-in
 * tools never ask. A tool that asks pauses the turn that calls it (see docs/api.md#tool-approvals).
 */
import type { Tool } from '@panto/core/agent-kit';
import type { MCPTool } from '@panto/core/mcp';
import type { ApprovalRule, MCPApprovalRules } from '../mcp-approvals.js';

/** `tool` as the service offers it: with `approval` when its calls must wait for a person, as is when not. */
export function withApproval(tool: MCPTool, rules: MCPApprovalRules): Tool {
  const reason = approvalReason(tool, rules);
  return reason === undefined ? tool : { ...tool, approval: { reason } };
}

/** Why a call of `tool` asks for approval; undefined when it does not. */
export function approvalReason({ mcp }: MCPTool, rules: MCPApprovalRules): string | undefined {
  const server = rules[mcp.server];
  const named: ApprovalRule | undefined = server !== undefined && Object.hasOwn(server.tools, mcp.tool) ? server.tools[mcp.tool] : undefined;
  if (named !== undefined) return named === 'ask' ? `the operator asks for approval of every call of "${mcp.tool}" (MCP server "${mcp.server}")` : undefined;
  if (server?.others !== undefined) {
    return server.others === 'ask' ? `the operator asks for approval of every tool of the MCP server "${mcp.server}"` : undefined;
  }
  if (mcp.annotations.readOnlyHint === true) return undefined;
  return `the MCP server "${mcp.server}" does not mark "${mcp.tool}" as read-only, so it may change something`;
}
