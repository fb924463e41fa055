/**
 * The page's colours: the system's (`prefers-color-scheme`, the default), or light or dark as
 * chosen with the switch — kept in local storage (a preference, not a secret: it outlives the
 * tab, unlike the token). The stylesheet does the rest: every colour is a `light-dark()` pair,
 * and `data-theme` on the root pins `color-scheme` to one of them.
 */
export type Theme = 'system' | 'light' | 'dark';

const KEY = 'panto.theme';
export const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

const isTheme = (value: unknown): value is Theme => THEMES.includes(value as Theme);

/** The chosen theme; `system` when none was chosen, or the storage cannot be read (a private window, say). */
export function storedTheme(storage: Pick<Storage, 'getItem'>): Theme {
  try {
    const value = storage.getItem(KEY);
    return isTheme(value) ? value : 'system';
  } catch {
    // Storage that may not be read (a private window, say): no choice kept, the system's applies.
    return 'system';
  }
}

/** Shows `theme` on `root` and keeps it for the next visit (best effort: a storage that refuses keeps nothing). */
export function applyTheme(theme: Theme, root: HTMLElement, storage?: Pick<Storage, 'setItem' | 'removeItem'>): void {
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    if (theme === 'system') storage?.removeItem(KEY);
    else storage?.setItem(KEY, theme);
  } catch {
    // Not kept: it still applies to this page.
  }
}
