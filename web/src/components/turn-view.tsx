/** One turn of the transcript: the prompt, the model's text (markdown), tool calls and results folded. */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { AssistantBlock, StoredMessage } from '../api/wire.js';
import { usageText } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import type { TranscriptTurn } from '../turns.js';

export function Markdown({ text }: { text: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown's HTML is sanitised by DOMPurify (markdown.ts)
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

/**
 * The answer as it streams in, with the cursor where the next words go: at the end of its last
 * line of text — inside the paragraph, list item or code block being written, not on a line of
 * its own after it.
 */
function LiveMarkdown({ text }: { text: string }) {
  const box = useRef<HTMLDivElement>(null);
  const html = renderMarkdown(text);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new HTML replaces the element's contents, the cursor with them: it goes back in
  useLayoutEffect(() => {
    const element = box.current;
    if (element === null) return;
    const cursor = element.ownerDocument.createElement('span');
    cursor.className = 'cursor';
    cursor.setAttribute('aria-hidden', 'true');
    const last = lastTextNode(element);
    if (last === null) element.append(cursor);
    else last.after(cursor);
  }, [html]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown's HTML is sanitised by DOMPurify (markdown.ts)
  return <div class="markdown" ref={box} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** The last text node under `element` that shows something (not white space between blocks). */
function lastTextNode(element: Element): Text | null {
  const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let last: Text | null = null;
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) if ((node.textContent ?? '').trim() !== '') last = node as Text;
  return last;
}

type ToolResult = Extract<StoredMessage, { role: 'tool_result' }>;
type Assistant = Extract<StoredMessage, { role: 'assistant' }>;
export type CompactionMessage = Extract<StoredMessage, { role: 'compaction' }>;

function ToolCall({ block, result, waiting }: { block: Extract<AssistantBlock, { type: 'tool_call' }>; result: ToolResult | undefined; waiting: boolean }) {
  const failed = result?.is_error === true;
  return (
    <details class={`tool${failed ? ' tool-error' : ''}`}>
      <summary>
        <span class="tool-name">{block.name}</span>
        <span class="tool-state">{result === undefined ? (waiting ? 'waiting for approval' : 'running…') : failed ? 'failed' : 'done'}</span>
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

function AssistantView({ reply, results }: { reply: Assistant; results: ReadonlyMap<string, ToolResult> }) {
  return (
    <div class="assistant">
      {reply.content.map((block, blockIndex) => {
        switch (block.type) {
          case 'text':
            // biome-ignore lint/suspicious/noArrayIndexKey: a stored message's blocks never change or move
            return <Markdown key={blockIndex} text={block.text} />;
          case 'tool_call':
            return (
              <ToolCall
                key={block.id}
                block={block}
                result={results.get(block.id)}
                waiting={reply.approval_requests?.some((request) => request.tool_call_id === block.id) === true}
              />
            );
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
}

/** A summary that replaced earlier messages, shown as it stands (an older one, among the messages a later one replaced). */
export function CompactionSummary({ message }: { message: CompactionMessage }) {
  return (
    <div class="compaction-summary">
      <div class="compaction-label">Summary of the earlier messages</div>
      <Markdown text={message.summary} />
    </div>
  );
}

export interface TurnViewProps {
  turn: TranscriptTurn;
  /** The model's text streaming in, before its message is stored. */
  live?: string | undefined;
  /** The line under the answer (components/answer-bar.tsx); by default its usage, when known. */
  footer?: ComponentChildren;
  /** How the prompt shows: by default as its text; the transcript gives it its Edit and branch switcher. */
  prompt?: ComponentChildren;
  /** How a compaction shows: by default as its summary. */
  compaction?: (message: CompactionMessage) => ComponentChildren;
}

export function TurnView({ turn, live, footer, prompt, compaction }: TurnViewProps) {
  const results = new Map<string, ToolResult>();
  for (const reply of turn.replies) if (reply.role === 'tool_result') results.set(reply.tool_call_id, reply);
  const only = turn.replies[0];
  if (turn.prompt === null && turn.replies.length === 1 && only?.role === 'compaction' && live === undefined) {
    return <article class="turn">{compaction ? compaction(only) : <CompactionSummary message={only} />}</article>;
  }
  return (
    <article class="turn">
      {turn.prompt !== null && (prompt ?? <div class="prompt">{turn.prompt}</div>)}
      {(turn.replies.length > 0 || live !== undefined) && (
        <div class="answer">
          {turn.replies.map((reply, index) => {
            switch (reply.role) {
              case 'assistant':
                return <AssistantView key={reply.id ?? index} reply={reply} results={results} />;
              case 'compaction':
                return <CompactionSummary key={reply.id ?? index} message={reply} />;
              default:
                return null;
            }
          })}
          {live !== undefined && (
            <div class="assistant live" aria-live="polite" aria-busy="true">
              <LiveMarkdown text={live} />
            </div>
          )}
          {footer ?? (turn.usage !== null && <div class="usage">{usageText(turn.usage)}</div>)}
        </div>
      )}
    </article>
  );
}
