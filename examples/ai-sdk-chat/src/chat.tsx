/**
 * The chat: `useChat` with the stock `DefaultChatTransport` — no custom transport code. The
 * chat's id is the session's; `resume: true` picks a running answer back up after a reload;
 * a tool call the server asks about shows Approve and Deny, and the decision goes with the
 * next request (sent at once by `sendAutomaticallyWhen`).
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type DynamicToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { type FormEvent, useState } from 'react';
import { errorText, type Panto, type PantoMessage, stopTurn } from './panto.js';

export function Chat({ panto, id, initialMessages }: { panto: Panto; id: string; initialMessages: PantoMessage[] }) {
  const [transport] = useState(
    () => new DefaultChatTransport<PantoMessage>({ api: `${panto.base}/chat`, headers: { Authorization: `Bearer ${panto.token}` } }),
  );
  const { messages, sendMessage, regenerate, addToolApprovalResponse, status, error, stop } = useChat<PantoMessage>({
    id,
    messages: initialMessages,
    resume: true,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (input.trim() === '' || busy) return;
    void sendMessage({ text: input });
    setInput('');
  };
  const decide = (part: DynamicToolUIPart, approved: boolean): void => {
    if (part.state === 'approval-requested')
      void addToolApprovalResponse({ id: part.approval.id, approved, ...(approved ? {} : { reason: 'the user said no' }) });
  };
  return (
    <main data-status={status}>
      <h1>panto × useChat</h1>
      <section role="log" aria-label="Transcript">
        {messages.map((message) => (
          <article key={message.id} data-role={message.role} aria-label={message.role}>
            {message.parts.map((part, index) => {
              // Parts carry no ids; a message's parts only grow at its end, so their place is stable.
              const key = `${message.id}-${index}`;
              return <Part key={key} part={part} decide={decide} />;
            })}
            {message.metadata?.usage && (
              <small title="Usage" data-usage>
                {message.metadata.usage.input_tokens} in, {message.metadata.usage.output_tokens} out
                {typeof message.metadata.cost_usd === 'number' ? `, $${message.metadata.cost_usd.toFixed(6)}` : ''}
              </small>
            )}
          </article>
        ))}
      </section>
      {error && <p role="alert">{errorText(error)}</p>}
      <form onSubmit={submit}>
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit" disabled={busy}>
          Send
        </button>
        <button type="button" disabled={busy || messages.at(-1)?.role !== 'assistant'} onClick={() => void regenerate()}>
          Regenerate
        </button>
        {/* stop() only drops this connection (the turn goes on); the stop route stops the turn. */}
        <button type="button" disabled={!busy} onClick={() => void stopTurn(panto, id).then(() => stop())}>
          Stop
        </button>
      </form>
    </main>
  );
}

/** One part of a message: text, reasoning, or a tool call with its state (and Approve / Deny while it waits). */
function Part({ part, decide }: { part: PantoMessage['parts'][number]; decide: (part: DynamicToolUIPart, approved: boolean) => void }) {
  if (part.type === 'text') return <p>{part.text}</p>;
  if (part.type === 'reasoning') {
    return (
      <details>
        <summary>Reasoning</summary>
        {part.text}
      </details>
    );
  }
  if (part.type !== 'dynamic-tool') return null;
  return (
    <div className="tool" data-state={part.state}>
      <code>{part.toolName}</code> <code>{JSON.stringify(part.input)}</code> <em>{part.state}</em>
      {part.state === 'output-available' && <pre>{String(part.output)}</pre>}
      {part.state === 'approval-requested' && (
        <span>
          <button type="button" onClick={() => decide(part, true)}>
            Approve
          </button>
          <button type="button" onClick={() => decide(part, false)}>
            Deny
          </button>
        </span>
      )}
    </div>
  );
}
