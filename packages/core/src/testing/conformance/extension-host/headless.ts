import { expect, it } from 'vitest';
import type { ExtensionHostHarness } from './suite.js';

/** With nobody there to answer, an extension's questions get their defaults. */
export function describeHeadlessContract(harness: ExtensionHostHarness): void {
  it('answers questions with their defaults when nobody is there to answer', async () => {
    const run = await harness.run({
      extensions: {
        'asker.mjs': `export default (panto) => panto.registerCommand('ask', {
          description: 'asks',
          handler: async (_args, context) => {
            const yes = await context.ui.confirm('Sure?', { default: true });
            const no = await context.ui.confirm('Really?');
            const name = await context.ui.ask('Name?', { default: 'nobody' });
            const none = await context.ui.ask('Anything?');
            context.ui.print([yes, no, name, none].join(' '));
          },
        });`,
      },
      replies: [],
      inputs: ['/ask'],
    });
    expect(run.printed).toContain('true false nobody ');
  });
}
