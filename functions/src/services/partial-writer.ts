/**
 * Keeps the answer of a running turn readable by any process while the model writes it: the
 * text so far is stored (`DynamoStore.writePartial`) at most once per `intervalMs`, the
 * first time `intervalMs` after the model started answering — so a turn whose answer comes
 * within the first second writes none and stays at two writes. Each stored message deletes
 * the partial in its own transaction.
 */
import type { DynamoStore, LeaseClock, PartialMessage } from '@panto/aws/service';
import { type Agent, emptyUsage } from '@panto/core/agent-kit';

export const PARTIAL_INTERVAL_MS = 1_000;

/** Subscribes to `agent`'s events; returns the unsubscribe, which also cancels a pending write. */
export function writePartials(
  store: DynamoStore,
  agent: Agent,
  clock: LeaseClock,
  onError: (error: unknown) => void,
  intervalMs = PARTIAL_INTERVAL_MS,
): () => void {
  let answer: { provider: string; model: string; text: string; startedAt: number } | null = null;
  let lastWrite = 0;
  let cancel: (() => void) | null = null;
  const stopTimer = (): void => {
    cancel?.();
    cancel = null;
  };
  const write = (): void => {
    cancel = null;
    if (answer === null || answer.text === '') return;
    lastWrite = clock.now();
    const message: PartialMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: answer.text }],
      provider: answer.provider,
      model: answer.model,
      usage: emptyUsage(),
    };
    store.writePartial(message).catch(onError);
  };
  const unsubscribe = agent.subscribe((event) => {
    switch (event.type) {
      case 'message-start':
        answer = { provider: event.provider, model: event.model, text: '', startedAt: clock.now() };
        return;
      case 'text-delta':
        if (answer === null) return;
        answer.text += event.delta;
        if (cancel === null) {
          const at = Math.max(answer.startedAt + intervalMs, lastWrite + intervalMs);
          cancel = clock.schedule(write, Math.max(0, at - clock.now()));
        }
        return;
      case 'message-end':
      case 'error':
      case 'step-end':
        // The message is about to be stored (and the partial deleted with it): nothing more to write.
        stopTimer();
        answer = null;
        return;
      default:
        return;
    }
  });
  return () => {
    stopTimer();
    unsubscribe();
  };
}
