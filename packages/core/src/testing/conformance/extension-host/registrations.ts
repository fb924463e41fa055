import { expect, it } from 'vitest';
import { type ExtensionHostHarness, kinds, PROBE, toolResults } from './suite.js';

/** What an extension registers reaches the agent and the user: its tool, its command, its guard. */
export function describeRegistrationContract(harness: ExtensionHostHarness): void {
  it("offers an extension's tool to the model, runs it, and stores its result", async () => {
    const run = await harness.run({
      extensions: { 'probe.mjs': PROBE },
      replies: [{ toolCalls: [{ id: 'c1', name: 'probe', input: { text: 'hi' } }] }, { text: 'done' }],
      inputs: ['use probe', '/probe-calls'],
    });
    expect(run.offeredTools).toContain('probe');
    expect(toolResults(run.entries)).toEqual([['probe saw hi', false]]);
    expect(run.printed).toContain('probe ran 1 times');
  });

  it("runs an extension's command with its arguments and the session: its id and its entries as stored", async () => {
    const run = await harness.run({
      extensions: {
        'entries.mjs': `export default (panto) => panto.registerCommand('entries', {
          description: 'list the entries',
          handler: async (args, context) => {
            const entries = await context.session.entries();
            const kinds = entries.map((entry) => entry.type === 'message' ? entry.message.role : entry.type);
            context.ui.print(args + ' ' + context.session.id + ' ' + kinds.join(','));
          },
        });`,
      },
      replies: [{ text: 'hello' }],
      inputs: ['hi', '/entries after one turn'],
    });
    const stored = kinds(run.entries).filter((kind) => kind !== 'system');
    expect(stored).toEqual(['user', 'assistant']);
    expect(run.printed).toMatch(/after one turn \S+ (system,)?user,assistant/);
  });

  it('turns a before-tool-call refusal into an error result the model sees, and does not run the tool', async () => {
    const run = await harness.run({
      extensions: {
        'probe.mjs': PROBE,
        'zz-guard.mjs': `export default (panto) => panto.on('before-tool-call', (call) =>
          call.input.text === 'forbidden' ? { type: 'refuse', reason: 'not that' } : undefined);`,
      },
      replies: [
        {
          toolCalls: [
            { id: 'c1', name: 'probe', input: { text: 'forbidden' } },
            { id: 'c2', name: 'probe', input: { text: 'fine' } },
          ],
        },
        { text: 'ok' },
      ],
      inputs: ['go', '/probe-calls'],
    });
    expect(toolResults(run.entries)).toEqual([
      ['Tool call refused: not that', true],
      ['probe saw fine', false],
    ]);
    expect(run.printed).toContain('probe ran 1 times');
  });
}
