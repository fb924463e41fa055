import { describe, expect, it } from 'vitest';
import { toolOutputFromMCP } from './result.js';

describe('toolOutputFromMCP', () => {
  it('joins text blocks, keeps images as images, and marks isError', () => {
    expect(
      toolOutputFromMCP({
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'text', text: 'second' },
        ],
        isError: true,
      }),
    ).toEqual({
      content: 'first\nsecond',
      is_error: true,
      images: [{ type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }],
    });
  });

  it('describes what a model cannot take in one line each: audio, resource links, binary resources; gives text resources in full', () => {
    const output = toolOutputFromMCP({
      content: [
        { type: 'audio', data: 'A'.repeat(4096), mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', description: 'a file' },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/zip', blob: 'AAAA' } },
        { type: 'resource', resource: { uri: 'file:///c.txt', text: 'hello' } },
      ],
    });
    expect(output).toEqual({
      content: [
        '[audio/wav audio of 3 KB not shown: audio is not passed to models]',
        '[resource link: file:///a.txt (a.txt) — a file]',
        '[resource file:///b.bin: application/zip of 0 KB not shown]',
        '[resource file:///c.txt]\nhello',
      ].join('\n'),
    });
  });

  it("gives structuredContent as JSON when there is no text, and an older server's toolResult", () => {
    expect(toolOutputFromMCP({ content: [], structuredContent: { sum: 5 } })).toEqual({ content: '{"sum":5}' });
    expect(toolOutputFromMCP({ toolResult: { ok: true } })).toEqual({ content: '{"ok":true}' });
  });

  it('cuts text above the limit, keeping the beginning and saying so', () => {
    const output = toolOutputFromMCP({ content: [{ type: 'text', text: 'é'.repeat(100) }] }, 51);
    expect(typeof output !== 'string' && output.content).toBe(`${'é'.repeat(25)}\n[… cut: the result was 200 bytes; the first 51 are shown]`);
  });
});
