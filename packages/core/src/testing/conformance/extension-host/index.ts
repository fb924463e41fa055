import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '../../../session/store.js';
import type { ScriptedReply } from '../../scripted-provider.js';

/** One run of a host: its extensions, its scripted model, and what is typed into it. */
export interface ExtensionHostRunSetup {
  /** Extension modules by file name (`probe.mjs`): ES module source whose default export is the extension. */
  extensions: Record<string, string>;
  /** The model's replies, one per provider call (a `ScriptedProvider`'s). */
  replies: ScriptedReply[];
  /** In order: a prompt (a turn), or `/name args` (an extension's command). Nobody answers questions. */
  inputs: string[];
}

/** What a run left behind. */
export interface ExtensionHostRun {
  /** The session's entries as stored. */
  entries: readonly SessionEntry[];
  /** Everything extensions printed through `ui.print`. */
  printed: string;
  /** Everything the host reported: extensions that failed to load (with their file), handlers that failed, notices. */
  reported: string;
  /** The tools the model was offered at its first call. */
  offeredTools: readonly string[];
}

/** How the suite drives a host. */
export interface ExtensionHostHarness {
  run(setup: ExtensionHostRunSetup): Promise<ExtensionHostRun>;
}

/** A tool that counts its calls in a global the `/probe-calls` command prints. */
const PROBE = `
export default (panto) => {
  globalThis.__probeCalls = 0;
  panto.registerTool({
    name: 'probe',
    description: 'Answers with what it was given',
    input_schema: { type: 'object', properties: { text: { type: 'string' } } },
    execute: async (input) => { globalThis.__probeCalls += 1; return 'probe saw ' + input.text; },
  });
  panto.registerCommand('probe-calls', { description: 'how often probe ran', handler: (_args, context) => context.ui.print('probe ran ' + globalThis.__probeCalls + ' times') });
};`;

/**
 * The behaviour every extension host must have (the CLI is one): what an extension
 * registers reaches the agent and the user, a guard's refusal reaches the model, and an
 * extension that fails — loading or later — is reported and changes nothing else. Call it
 * from a test file of your host.
 *
 * @example
 * describeExtensionHostConformance('panto CLI', { run: (setup) => runCliWith(setup) });
 */
export function describeExtensionHostConformance(name: string, harness: ExtensionHostHarness): void {
  const kinds = (entries: readonly SessionEntry[]) => entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));
  const toolResults = (entries: readonly SessionEntry[]) =>
    entries.flatMap((entry) => (entry.type === 'message' && entry.message.role === 'tool_result' ? [[entry.message.content, entry.message.is_error]] : []));

  describe(`${name} (extension host conformance)`, () => {
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
  });
}
