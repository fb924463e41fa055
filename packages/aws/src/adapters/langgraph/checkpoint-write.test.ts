import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { sourcesOf } from './checkpoint-write.js';

describe('sourcesOf', () => {
  it('points the channels a put changed at the new checkpoint, and the rest where the parent had them', () => {
    const checkpoint = { ...emptyCheckpoint(), id: 'c2', channel_versions: { messages: 3, step: 2, gone: 1 } };
    expect(sourcesOf({ checkpoint, newVersions: { step: 2 }, parentSources: { messages: 'c0', step: 'c1' } })).toEqual({ messages: 'c0', step: 'c2' });
  });

  it('leaves out a channel no ancestor stored, and names a channel changed to empty after the new checkpoint', () => {
    const checkpoint = { ...emptyCheckpoint(), id: 'c1', channel_versions: { a: 1 } };
    expect(sourcesOf({ checkpoint, newVersions: { b: 2 }, parentSources: {} })).toEqual({ b: 'c1' });
  });
});
