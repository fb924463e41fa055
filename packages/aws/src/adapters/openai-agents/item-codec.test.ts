import { describe, expect, it } from 'vitest';
import { encodeItem, reviveBytes } from './item-codec.js';

describe('agent item codec', () => {
  it('round-trips an item whose file data is bytes, as bytes', () => {
    const item = { role: 'user', content: [{ type: 'input_file', file: { data: new Uint8Array([0, 1, 254, 255]) } }] };
    const back = JSON.parse(encodeItem(item), reviveBytes) as typeof item;
    expect(back.content[0]!.file.data).toBeInstanceOf(Uint8Array);
    expect([...back.content[0]!.file.data]).toEqual([0, 1, 254, 255]);
  });

  it('leaves plain JSON alone, including an object that only looks like encoded bytes', () => {
    const item = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }], meta: { __panto_bytes: 'AA==', other: 1 } };
    expect(JSON.parse(encodeItem(item), reviveBytes)).toEqual(item);
  });
});
