import { describe, expect, it } from 'vitest';
import { SSEParser } from './sse.js';

describe('SSEParser', () => {
  it('hands out an event once its blank line arrives, across chunk boundaries', () => {
    const parser = new SSEParser();
    expect(parser.push('event: text-delta\ndata: {"delta":"Hel')).toEqual([]);
    expect(parser.push('lo"}\n')).toEqual([]);
    expect(parser.push('\nevent: end\ndata: {}\n\n')).toEqual([
      { event: 'text-delta', data: '{"delta":"Hello"}' },
      { event: 'end', data: '{}' },
    ]);
  });

  it('joins data lines, keeps the id, skips comments, and reads CRLF line ends', () => {
    const parser = new SSEParser();
    expect(parser.push(': keep-alive\r\nevent: message\r\nid: 7\r\ndata: a\r\ndata: b\r\n\r\n')).toEqual([{ event: 'message', data: 'a\nb', id: '7' }]);
  });

  it('waits when a chunk ends between CR and LF', () => {
    const parser = new SSEParser();
    expect(parser.push('data: x\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ event: 'message', data: 'x' }]);
  });
});
