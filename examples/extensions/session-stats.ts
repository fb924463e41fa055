/**
 * A command: `/stats` reads the session's entries — as stored, not just the live
 * conversation, so compacted history counts too — and prints what the session holds: its
 * entries by kind, the tools called, and the tokens spent.
 */
import type { Extension, SessionEntry } from '@panto/core';

const sessionStats: Extension = (panto) => {
  panto.registerCommand('stats', {
    description: "what this session holds: entries by kind, tool calls, tokens (from the session's entries)",
    handler: async (_args, context) => {
      const entries = await context.session.entries();
      context.ui.print(statsText(context.session.id, context.session.file, entries));
    },
  });
};

export function statsText(id: string, file: string | undefined, entries: readonly SessionEntry[]): string {
  const kinds = new Map<string, number>();
  const tools = new Map<string, number>();
  let input = 0;
  let output = 0;
  for (const entry of entries) {
    const kind = entry.type === 'message' ? entry.message.role : entry.type;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (entry.type === 'compaction') {
      input += entry.usage.input_tokens;
      output += entry.usage.output_tokens;
      continue;
    }
    if (entry.type !== 'message' || entry.message.role !== 'assistant') continue;
    input += entry.message.usage.input_tokens;
    output += entry.message.usage.output_tokens;
    for (const block of entry.message.content) {
      if (block.type === 'tool_call') tools.set(block.name, (tools.get(block.name) ?? 0) + 1);
    }
  }
  const list = (counts: Map<string, number>) => [...counts].map(([name, count]) => `${count} ${name}`).join(', ') || 'none';
  return [
    `session  ${id}${file === undefined ? ' (no file yet)' : ` (${file})`}`,
    `entries  ${entries.length}: ${list(kinds)}`,
    `tools    ${list(tools)}`,
    `tokens   ${input} in, ${output} out`,
  ].join('\n');
}

export default sessionStats;
