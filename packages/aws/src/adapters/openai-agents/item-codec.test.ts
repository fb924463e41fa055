import { describe, expect, it } from 'vitest';
import { encodeItem, reviveItem } from './item-codec.js';

const roundTrip = (item: unknown) => JSON.parse(encodeItem(item), reviveItem) as unknown;

describe('agent item codec', () => {
  it('round-trips an item whose file data is bytes, as bytes', () => {
    const item = { role: 'user', content: [{ type: 'input_file', file: { data: new Uint8Array([0, 1, 254, 255]) } }] };
    const back = roundTrip(item) as typeof item;
    expect(back.content[0]!.file.data).toBeInstanceOf(Uint8Array);
    expect([...back.content[0]!.file.data]).toEqual([0, 1, 254, 255]);
  });

  it('leaves plain JSON alone', () => {
    const item = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }], providerData: { __panto_bytes: 'AA==', other: 1 } };
    expect(roundTrip(item)).toEqual(item);
  });

  it('gives back an object of the item’s own that looks like a marker as that object, not as bytes', () => {
    const item = {
      role: 'user',
      content: 'x',
      providerData: { a: { __panto_bytes: 'AA==' }, b: { __panto_object: [['k', 1]] }, c: [{ __panto_bytes: 'AQ==' }] },
    };
    expect(roundTrip(item)).toEqual(item);
  });
});
