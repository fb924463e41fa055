import { expect, it } from 'vitest';
import { type ExtensionHostHarness, kinds, PROBE, toolResults } from './suite.js';

/** An extension that fails, loading or later, is reported and changes nothing else. */
export function describeFailureContract(harness: ExtensionHostHarness): void {
  it('reports an extension that fails to load, naming its file, and loads the others', async () => {
    const run = await harness.run({
      extensions: {
        'broken.mjs': `export default () => { throw new Error('missing configuration'); };`,
        'probe.mjs': PROBE,
      },
      replies: [{ toolCalls: [{ id: 'c1', name: 'probe', input: { text: 'still here' } }] }, { text: 'ok' }],
      inputs: ['go'],
    });
    expect(run.reported).toMatch(/broken\.mjs[^\n]*missing configuration/);
    expect(toolResults(run.entries)).toEqual([['probe saw still here', false]]);
  });

  it('reports an event handler that throws, and stores the turn all the same', async () => {
    const run = await harness.run({
      extensions: {
        'observer.mjs': `export default (panto) => {
          panto.on('step-end', () => { throw new Error('observer broke'); });
          panto.on('entries-persisted', async () => { throw new Error('async observer broke'); });
        };`,
      },
      replies: [{ text: 'stored anyway' }],
      inputs: ['hi'],
    });
    expect(kinds(run.entries).filter((kind) => kind !== 'system')).toEqual(['user', 'assistant']);
    expect(run.reported).toContain('observer broke');
    expect(run.reported).toContain('async observer broke');
  });
}
