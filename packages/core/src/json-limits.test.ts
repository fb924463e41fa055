import { describe, expect, it } from 'vitest';
import { exceedsJSONDepth, MAX_JSON_DEPTH, mayExceedJSONDepth } from './json-limits.js';

/** An array nested `levels` deep, built without recursion: `[[…[]…]]`. */
function nestedArray(levels: number): unknown[] {
  const root: unknown[] = [];
  let current = root;
  for (let level = 1; level < levels; level++) {
    const next: unknown[] = [];
    current.push(next);
    current = next;
  }
  return root;
}

describe('exceedsJSONDepth', () => {
  it('counts objects and arrays as levels, scalars as none', () => {
    expect(exceedsJSONDepth('text', 0)).toBe(false);
    expect(exceedsJSONDepth({}, 0)).toBe(true);
    expect(exceedsJSONDepth({}, 1)).toBe(false);
    expect(exceedsJSONDepth({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(exceedsJSONDepth({ a: [1, { b: 2 }] }, 2)).toBe(true);
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default and refuses one more`, () => {
    expect(exceedsJSONDepth(nestedArray(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJSONDepth(nestedArray(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('walks a value a million levels deep without overflowing the stack', () => {
    expect(exceedsJSONDepth(JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`))).toBe(true);
  });

  it('finds the one deep path among many shallow ones', () => {
    expect(exceedsJSONDepth({ wide: Array.from({ length: 1000 }, (_, i) => ({ i })), deep: nestedArray(200) })).toBe(true);
  });
});

describe('mayExceedJSONDepth', () => {
  it('clears a long text that holds no more brackets than the limit, without a walk', () => {
    expect(mayExceedJSONDepth(JSON.stringify({ content: 'x'.repeat(10_000), list: [1, 2, 3] }), 4)).toBe(false);
  });

  it('sends every text that nests deeper than the limit on to the walk, brackets inside strings counted too', () => {
    const deep = JSON.stringify(nestedArray(MAX_JSON_DEPTH + 1));
    expect(mayExceedJSONDepth(deep, MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsJSONDepth(JSON.parse(deep), MAX_JSON_DEPTH)).toBe(true);
    const shallowButBracey = JSON.stringify({ code: '{['.repeat(MAX_JSON_DEPTH) });
    expect(mayExceedJSONDepth(shallowButBracey, MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsJSONDepth(JSON.parse(shallowButBracey), MAX_JSON_DEPTH)).toBe(false);
  });
});
