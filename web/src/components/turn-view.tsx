/** One turn of the transcript: the prompt, the model's text (markdown), tool calls and results folded. */
import type { AssistantBlock, StoredMessage } from '../api/wire.js';
import { usageText } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import type { TranscriptTurn } from '../turns.js';

function Markdown({ text }: { text: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown's HTML is sanitised by DOMPurify (markdown.ts)
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

type ToolResult = Extract<StoredMessage, { role: 'tool_result' }>;

function ToolCall({ block, result }: { block: Extract<AssistantBlock, { type: 'tool_call' }>; result: ToolResult | undefined }) {
  const failed = result?.is_error === true;
  return (
    <details class={`tool${failed ? ' tool-error' : ''}`}>
      <summary>
        <span class="tool-name">{block.name}</span>
        <span class="tool-state">{result === undefined ? 'running…' : failed ? 'failed' : 'done'}</span>
      </summary>
      <div class="tool-body">
        <div class="tool-label">input</div>
        <pre>{JSON.stringify(block.input, null, 2)}</pre>
        {result && (
          <>
            <div class="tool-label">{failed ? 'error' : 'result'}</div>
            <pre>{result.content}</pre>
          </>
        )}
      </div>
    </details>
  );
}

export function TurnView({ turn, live }: { turn: TranscriptTurn; live?: string | undefined }) {
  const results = new Map<string, ToolResult>();
  for (const reply of turn.replies) if (reply.role === 'tool_result') results.set(reply.tool_call_id, reply);
  return (
    <article class="turn">
      {turn.prompt !== null && <div class="prompt">{turn.prompt}</div>}
      {(turn.replies.length > 0 || live !== undefined) && (
        <div class="answer">
          {turn.replies.map((reply, index) => {
            switch (reply.role) {
              case 'assistant':
                return (
                  <div key={reply.id ?? index} class="assistant">
                    {reply.content.map((block, blockIndex) => {
                      switch (block.type) {
                        case 'text':
                          // biome-ignore lint/suspicious/noArrayIndexKey: a stored message's blocks never change or move
                          return <Markdown key={blockIndex} text={block.text} />;
                        case 'tool_call':
                          return <ToolCall key={block.id} block={block} result={results.get(block.id)} />;
                        case 'thinking':
                          return (
                            // biome-ignore lint/suspicious/noArrayIndexKey: a stored message's blocks never change or move
                            <details key={blockIndex} class="thinking">
                              <summary>thinking</summary>
                              <pre>{block.thinking}</pre>
                            </details>
                          );
                        case 'redacted_thinking':
                          return null;
                        default:
                          return null;
                      }
                    })}
                    {reply.stop_reason === 'aborted' && <p class="note">Stopped.</p>}
                    {reply.stop_reason === 'error' && <p class="note note-error">The model failed{reply.error_message ? `: ${reply.error_message}` : '.'}</p>}
                  </div>
                );
              case 'compaction':
                return (
                  <details key={reply.id ?? index} class="compaction">
                    <summary>Compacted: earlier messages summarised</summary>
                    <Markdown text={reply.summary} />
                  </details>
                );
              default:
                return null;
            }
          })}
          {live !== undefined && (
            <div class="assistant live" aria-live="polite" aria-busy="true">
              <Markdown text={live} />
            </div>
          )}
          {turn.usage !== null && <div class="usage">{usageText(turn.usage)}</div>}
        </div>
      )}
    </article>
  );
}
