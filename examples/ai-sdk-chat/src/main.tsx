/** The page: a session to chat in (`?session=<id>`, else a new one), its messages so far, then the chat. */
import { createRoot } from 'react-dom/client';
import { Chat } from './chat.js';
import { createSession, loadChat, pantoFromLocation } from './panto.js';

async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  const panto = pantoFromLocation(window.location);
  const url = new URL(window.location.href);
  let id = url.searchParams.get('session');
  if (id === null) {
    id = await createSession(panto);
    url.searchParams.set('session', id);
    window.history.replaceState(null, '', url);
  }
  root.render(<Chat panto={panto} id={id} initialMessages={await loadChat(panto, id)} />);
}

main().catch((error: unknown) => {
  document.body.textContent = `Could not start: ${error instanceof Error ? error.message : String(error)}`;
});
