import { describe, expect, it } from 'vitest';
import { describeForApproval } from './approval-prompt.js';

describe('describeForApproval', () => {
  it('shows the whole bash command, the start of a written file, and an edit as - / + lines', () => {
    expect(describeForApproval({ type: 'tool_call', id: 'c', name: 'bash', input: { command: 'npm ci\nnpm test' } })).toEqual([
      'panto wants to run bash:',
      '  $ npm ci',
      '    npm test',
    ]);
    expect(describeForApproval({ type: 'tool_call', id: 'c', name: 'write', input: { path: 'a.txt', content: 'one\ntwo' } })).toEqual([
      'panto wants to write a.txt (2 lines):',
      '    one',
      '    two',
    ]);
    const long = Array.from({ length: 8 }, (_, i) => `line ${i}`).join('\n');
    expect(
      describeForApproval({
        type: 'tool_call',
        id: 'c',
        name: 'edit',
        input: { path: 'b.ts', old_text: 'x = 1', new_text: long },
      }),
    ).toEqual(['panto wants to edit b.ts:', '  - x = 1', ...Array.from({ length: 6 }, (_, i) => `  + line ${i}`), '    … 2 more lines']);
  });

  it('shows control characters as escapes, so a carriage return or an escape sequence cannot hide part of a command', () => {
    const hidden = 'touch /tmp/pwned #\r echo harmless';
    const lines = describeForApproval({
      type: 'tool_call',
      id: 'c',
      name: 'bash',
      input: { command: `${hidden}\n\x1b[2Aecho \u202eok` },
    });
    expect(lines).toEqual(['panto wants to run bash:', '  $ touch /tmp/pwned #\\r echo harmless', '    \\e[2Aecho \\u{202e}ok']);
    expect(lines.join('\n')).not.toMatch(/[\r\x1b\u202e]/);
    const [header] = describeForApproval({
      type: 'tool_call',
      id: 'c',
      name: 'write',
      input: { path: 'a\rb.txt', content: 'x' },
    });
    expect(header).toBe('panto wants to write a\\rb.txt (1 line):');
  });

  it('shows every line of a bash command, however long: the approval covers all of it', () => {
    const command = [...Array.from({ length: 20 }, (_, i) => `echo ${i}`), 'rm -rf build'].join('\n');
    const lines = describeForApproval({ type: 'tool_call', id: 'c', name: 'bash', input: { command } });
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe('    rm -rf build');
  });

  it('counts the lines of a written file as the write tool does: a final line break starts no line', () => {
    const write = (content: string) => describeForApproval({ type: 'tool_call', id: 'c', name: 'write', input: { path: 'w.txt', content } });
    expect(write('line1\nline2\n')).toEqual(['panto wants to write w.txt (2 lines):', '    line1', '    line2']);
    expect(write('')).toEqual(['panto wants to write w.txt (empty):']);
  });
});
