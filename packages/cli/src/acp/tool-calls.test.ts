import type { ToolCallBlock } from '@panto/core';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentAfterRun, contentBeforeRun, contentOfCall, fenced, MAX_DIFF_FILE_BYTES, toolKind, toolLocations, toolTitle } from './tool-calls.js';

const call = (name: string, input: ToolCallBlock['input']): ToolCallBlock => ({ type: 'tool_call', id: 'c1', name, input });
const result = (content: string, isError = false) => ({ role: 'tool_result' as const, tool_call_id: 'c1', tool_name: 'x', content, is_error: isError });

let root: string;
let cwd: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'panto-acp-tools-'));
  cwd = join(root, 'work');
  await mkdir(cwd);
});
afterEach(async () => rm(root, { recursive: true, force: true }));

describe('tool calls as ACP shows them', () => {
  it('gives each tool its kind: read, edit (write and edit), execute (bash), other', () => {
    expect(['read', 'write', 'edit', 'bash', 'mcp__docs__search'].map(toolKind)).toEqual(['read', 'edit', 'edit', 'execute', 'other']);
  });

  it('titles a call as the terminal does, with control characters escaped', () => {
    expect(toolTitle(call('bash', { command: 'ls\u001b[2J' }))).toBe('bash $ ls\\e[2J');
    expect(toolTitle(call('read', { path: 'a.ts', offset: 10, limit: 5 }))).toBe('read a.ts:10+5');
  });

  it('locates the file of read, write and edit (absolute, the first line read), and nothing for other tools', () => {
    expect(toolLocations(call('read', { path: 'src/a.ts', offset: 7 }), '/w')).toEqual([{ path: '/w/src/a.ts', line: 7 }]);
    expect(toolLocations(call('edit', { path: '/abs/b.ts', old_text: 'a', new_text: 'b' }), '/w')).toEqual([{ path: '/abs/b.ts' }]);
    expect(toolLocations(call('bash', { command: 'ls' }), '/w')).toEqual([]);
  });

  it('shows an edit as a diff and a bash command in a fence before either runs', () => {
    expect(contentBeforeRun(call('edit', { path: 'a.ts', old_text: 'old', new_text: 'new' }), '/w')).toEqual([
      { type: 'diff', path: '/w/a.ts', oldText: 'old', newText: 'new' },
    ]);
    expect(contentBeforeRun(call('bash', { command: 'npm test' }), '/w')).toEqual([
      { type: 'content', content: { type: 'text', text: '```sh\nnpm test\n```' } },
    ]);
  });

  it("shows a write as a diff against the file's current text, or against nothing for a new file", async () => {
    await writeFile(join(cwd, 'a.txt'), 'before\n');
    expect(await contentOfCall(call('write', { path: 'a.txt', content: 'after\n' }), cwd)).toEqual([
      { type: 'diff', path: join(cwd, 'a.txt'), oldText: 'before\n', newText: 'after\n' },
    ]);
    expect(await contentOfCall(call('write', { path: 'new.txt', content: 'x' }), cwd)).toEqual([
      { type: 'diff', path: join(cwd, 'new.txt'), oldText: null, newText: 'x' },
    ]);
  });

  it('never reads a file outside the working folder into a diff, even through a link inside it', async () => {
    const secret = join(root, 'secret.txt');
    await writeFile(secret, 'TOKEN=abc\n');
    await symlink(secret, join(cwd, 'link.txt'));
    for (const path of [secret, 'link.txt']) {
      const content = await contentOfCall(call('write', { path, content: 'x' }), cwd);
      expect(JSON.stringify(content)).not.toContain('TOKEN');
      expect(content[1]).toEqual({
        type: 'content',
        content: { type: 'text', text: 'This replaces an existing file, whose current content is not shown (it is outside the working folder).' },
      });
    }
  });

  it('does not show a file too large or not text', async () => {
    await writeFile(join(cwd, 'big.txt'), 'a'.repeat(MAX_DIFF_FILE_BYTES + 1));
    await writeFile(join(cwd, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect(JSON.stringify(await contentOfCall(call('write', { path: 'big.txt', content: 'x' }), cwd))).toContain('it is too large to show');
    expect(JSON.stringify(await contentOfCall(call('write', { path: 'bin.dat', content: 'x' }), cwd))).toContain('it is not text');
  });

  it("keeps a successful call's diff after it ran, drops it for a failed one, and fences bash and read output", () => {
    const diff = { type: 'diff' as const, path: '/w/a', oldText: 'a', newText: 'b' };
    expect(contentAfterRun(call('edit', {}), result('Edited a'), [diff])).toEqual([diff, { type: 'content', content: { type: 'text', text: 'Edited a' } }]);
    expect(contentAfterRun(call('edit', {}), result('old_text not found', true), [diff])).toEqual([
      { type: 'content', content: { type: 'text', text: 'old_text not found' } },
    ]);
    expect(contentAfterRun(call('bash', {}), result('ok\n'), [])).toEqual([{ type: 'content', content: { type: 'text', text: '```\nok\n```' } }]);
  });

  it('fences text with a fence longer than any run of backticks in it', () => {
    expect(fenced('a ```` b')).toBe('`````\na ```` b\n`````');
  });
});
