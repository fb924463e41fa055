import type { Message } from '../../../messages.js';
import type { SessionStore } from '../../../session/store.js';
import { RecordFactory } from '../../fixtures.js';

export interface SessionStoreFactory {
  /** A store on a new, empty session. */
  create(): Promise<SessionStore>;
  /**
   * A second, independent handle on the same session, opened as another process would
   * (also given the stores `fork` returns).
   */
  reopen(store: SessionStore): Promise<SessionStore>;
}

/** What each area of the store suite registers its cases with. */
export interface StoreSuite {
  readonly factory: SessionStoreFactory;
  /** A record factory with ids of its own, so that no two cases share an id. */
  records(): RecordFactory;
}

export function storeSuite(factory: SessionStoreFactory): StoreSuite {
  return { factory, records: () => new RecordFactory(`e${Math.random().toString(36).slice(2, 8)}`) };
}

/** What a message says, in a word or two: a prompt's text, an answer's first text, else its role. */
export function said(message: Message): string {
  if (message.role === 'user' || message.role === 'system') return message.content;
  if (message.role === 'assistant') {
    const block = message.content[0];
    return block?.type === 'text' ? block.text : 'assistant';
  }
  return message.role === 'compaction' ? `summary: ${message.summary}` : message.role;
}

export { withoutFraming } from '../../../session/format.js';

/** q1 → a1 → q2 → a2, in two batches; returns the records. */
export async function appendTwoTurns(store: SessionStore, f: RecordFactory) {
  const q1 = f.user('q1');
  const a1 = f.assistant('a1');
  const q2 = f.user('q2');
  const a2 = f.assistant('a2', { provider: 'p2', model: 'm2' });
  await store.appendMessages([q1, a1]);
  await store.appendMessages([q2, a2]);
  return { q1, a1, q2, a2 };
}
