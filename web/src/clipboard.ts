/** Copying for the page: the clipboard where the page may use it, else a selection to copy by hand. */

/** Puts `text` on the clipboard; false where the page may not (no clipboard API: an origin that is not secure). */
export async function copyText(text: string): Promise<boolean> {
  if (!navigator.clipboard) return false;
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Refused (no permission, the page not focused): the answer false is the failure, handed to
    // the caller, which selects the text for the reader to copy by hand instead.
    return false;
  }
}

/** Selects the text of `element`, for the reader to copy with the keyboard. */
export function selectText(element: Element): void {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}
