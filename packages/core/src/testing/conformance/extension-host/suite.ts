import type { SessionEntry } from '../../../session/records.js';
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
export const PROBE = `
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

/** The kind of each entry: a message's role, else the entry's type. */
export function kinds(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));
}

/** Each tool result stored, as its content and whether it is an error. */
export function toolResults(entries: readonly SessionEntry[]): (string | boolean)[][] {
  return entries.flatMap((entry) =>
    entry.type === 'message' && entry.message.role === 'tool_result' ? [[entry.message.content, entry.message.is_error]] : [],
  );
}
