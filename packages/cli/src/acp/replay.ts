/**
 * `session/load`: the conversation as the client shows it — every prompt, answer, thought
 * and tool call (with its status and result) as the `session/update`s a live turn sends.
 * A `write`'s diff is not replayed: the file before it is gone; its result is.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message, ToolResultMessage } from '@panto/core';
import { contentAfterRun, contentBeforeRun, toolKind, toolLocations, toolTitle } from './tool-calls.js';

/**
 * The updates that replay `messages` (a conversation's path), in order. System messages are
 * not shown (they are not part of the thread); a compaction shows its summary.
 *
 * @example
 * for (const update of replayUpdates(agent.conversation.messages, cwd)) await notify(update);
 */
export function replayUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  const results = new Map<string, ToolResultMessage>();
  for (const message of messages) if (message.role === 'tool_result') results.set(message.tool_call_id, message);
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: message.content } });
        break;
      case 'assistant':
        for (const block of message.content) {
          if (block.type === 'text' && block.text !== '') updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: block.text } });
          else if (block.type === 'thinking' && block.thinking !== '')
            updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: block.thinking } });
          else if (block.type === 'tool_call') {
            const result = results.get(block.id);
            const before = contentBeforeRun(block, cwd);
            updates.push({
              sessionUpdate: 'tool_call',
              toolCallId: block.id,
              title: toolTitle(block),
              kind: toolKind(block.name),
              // A call without a result never finished (a crash while it ran).
              status: result === undefined || result.is_error ? 'failed' : 'completed',
              rawInput: block.input,
              locations: toolLocations(block, cwd),
              content: result === undefined ? before.filter((item) => item.type !== 'diff') : contentAfterRun(block, result, before),
              ...(result === undefined ? {} : { rawOutput: { content: result.content, is_error: result.is_error } }),
            });
          }
        }
        break;
      case 'compaction':
        updates.push({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `*Earlier turns were compacted into this summary:*\n\n${message.summary}` },
        });
        break;
      case 'system':
      case 'tool_result':
        break;
      default: {
        const unexpected: never = message;
        return unexpected;
      }
    }
  }
  return updates;
}
