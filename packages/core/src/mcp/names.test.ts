import { describe, expect, it } from 'vitest';
import { mcpToolName, TOOL_NAME_RULE } from './names.js';

describe('mcpToolName', () => {
  it('names a tool mcp__<server>__<tool>, unchanged when both fit the rule', () => {
    expect(mcpToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
  });

  it('turns characters model APIs refuse (., /, spaces) into _', () => {
    expect(mcpToolName('my.server', 'files/read all')).toBe('mcp__my_server__files_read_all');
  });

  it('caps a long name at 64 characters with a hash of the server and tool, so two long names stay apart', () => {
    const long = 'a'.repeat(80);
    const one = mcpToolName('server', `${long}1`);
    const two = mcpToolName('server', `${long}2`);
    expect(one).toHaveLength(64);
    expect(one).toMatch(TOOL_NAME_RULE);
    expect(one).toMatch(/^mcp__server__a+_[0-9a-f]{8}$/);
    expect(one).not.toBe(two);
    expect(mcpToolName('server', `${long}1`)).toBe(one);
  });

  it('gives a hashed name on request, to tell apart tools whose cleaned names clash', () => {
    expect(mcpToolName('s', 'a.b')).toBe(mcpToolName('s', 'a_b'));
    expect(mcpToolName('s', 'a.b', { hashed: true })).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(mcpToolName('s', 'a.b', { hashed: true })).not.toBe(mcpToolName('s', 'a_b', { hashed: true }));
  });
});
