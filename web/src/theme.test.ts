import { describe, expect, it } from 'vitest';
import { applyTheme, storedTheme } from './theme.js';

function memoryStorage(): Storage {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
    removeItem: (key) => void values.delete(key),
    clear: () => values.clear(),
    key: () => null,
    get length() {
      return values.size;
    },
  };
}

describe('the theme', () => {
  it('follows the system until one is chosen, then keeps the choice; choosing System forgets it', () => {
    const storage = memoryStorage();
    const root = { dataset: {} as DOMStringMap } as HTMLElement;
    expect(storedTheme(storage)).toBe('system');
    applyTheme('dark', root, storage);
    expect(root.dataset.theme).toBe('dark');
    expect(storedTheme(storage)).toBe('dark');
    applyTheme('system', root, storage);
    expect(root.dataset.theme).toBeUndefined();
    expect(storedTheme(storage)).toBe('system');
  });

  it('reads an unknown value, or a storage that throws, as the system theme', () => {
    const storage = memoryStorage();
    storage.setItem('panto.theme', 'purple');
    expect(storedTheme(storage)).toBe('system');
    expect(
      storedTheme({
        getItem: () => {
          throw new Error('denied');
        },
      }),
    ).toBe('system');
  });
});
