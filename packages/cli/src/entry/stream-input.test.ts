import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseInputLine, readLines } from './stream-input.js';

async function lines(chunks: (string | Buffer)[], max?: number) {
  const read = [];
  for await (const line of readLines(Readable.from(chunks), max)) read.push(line);
  return read;
}

describe('stream-json input lines', () => {
  it("reads Claude Code's prompt shapes: content as a string, or as text blocks", () => {
    expect(parseInputLine('{"type":"user","message":{"role":"user","content":"hi"}}')).toEqual({ type: 'prompt', text: 'hi' });
    expect(parseInputLine('{"type":"user","session_id":"x","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}')).toEqual({
      type: 'prompt',
      text: 'a\n\nb',
    });
  });

  it('reads an interrupt and other control requests', () => {
    expect(parseInputLine('{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}')).toEqual({ type: 'interrupt', requestId: 'r1' });
    expect(parseInputLine('{"type":"control_request","request_id":"r2","request":{"subtype":"set_model"}}')).toEqual({
      type: 'unsupported',
      requestId: 'r2',
      subtype: 'set_model',
    });
    expect(parseInputLine('{"type":"control_request","request":{"subtype":"interrupt"}}')).toEqual({
      type: 'invalid',
      reason: 'a control_request needs a request_id (a string)',
    });
  });

  it.each([
    ['{', /^not JSON: /],
    ['"text"', /^expected a JSON object$/],
    ['null', /^expected a JSON object$/],
    ['{"type":"user","message":{"role":"assistant","content":"x"}}', /^message.role must be "user"/],
    ['{"type":"user","message":{"content":42}}', /^message.content must be a string or a list of text blocks$/],
    ['{"type":"user","message":{"content":[{"type":"text"}]}}', /^message.content\[0\]: panto takes text blocks/],
    ['{"type":"user","message":{"content":""}}', /^the prompt is empty$/],
    ['{"kind":"user"}', /^unknown type undefined/],
  ])('refuses %s', (line, reason) => {
    const parsed = parseInputLine(line);
    expect(parsed.type).toBe('invalid');
    expect(parsed.type === 'invalid' && parsed.reason).toMatch(reason);
  });

  it('splits lines across chunks, reads \\r\\n and a last line without a break', async () => {
    expect(await lines(['ab', 'c\r\nd', 'e\n\nf'])).toEqual([
      { type: 'line', text: 'abc' },
      { type: 'line', text: 'de' },
      { type: 'line', text: '' },
      { type: 'line', text: 'f' },
    ]);
  });

  it('reports a line over the limit without keeping it, and reads on', async () => {
    expect(await lines(['12345', '678\nok\n'], 6)).toEqual([
      { type: 'too-long', bytes: 8 },
      { type: 'line', text: 'ok' },
    ]);
  });

  it('keeps a character whose bytes are split between chunks', async () => {
    const bytes = Buffer.from('é\n');
    expect(await lines([bytes.subarray(0, 1), bytes.subarray(1)])).toEqual([{ type: 'line', text: 'é' }]);
  });
});
