/** The browser tab's title while a chat is open: the session's, then the page's again. */
import { useEffect } from 'preact/hooks';

export function useDocumentTitle(title: string | null): void {
  useEffect(() => {
    document.title = title === null ? 'panto' : `${title} · panto`;
    return () => {
      document.title = 'panto';
    };
  }, [title]);
}
