/**
 * Copy code: the button markdown.ts puts on every code block is part of the sanitised HTML of
 * a message, so the transcript hears its clicks (one listener for all of them; no inline
 * handler, which the page's CSP would refuse) and copies the block's code — as the text it
 * is, not its highlighted HTML.
 */

import { copyText, selectText } from '../clipboard.js';

const LABEL = 'Copy code';

/** When `target` is (in) a Copy code button: copies its block's code, and says so on the button for two seconds. */
export function copyCodeBlock(target: EventTarget | null): void {
  if (!(target instanceof Element)) return;
  const button = target.closest('button.copy-code');
  const code = button?.closest('.code-block')?.querySelector('pre code');
  if (!(button instanceof HTMLButtonElement) || !code) return;
  void copyText(code.textContent ?? '').then((copied) => {
    if (!copied) selectText(code);
    button.textContent = copied ? 'Copied' : 'Selected: press Ctrl+C';
    setTimeout(() => {
      button.textContent = LABEL;
    }, 2000);
  });
}
