/** The switch between the system's colours and light or dark ones (theme.ts). */
import { useState } from 'preact/hooks';
import { applyTheme, storedTheme, THEMES, type Theme } from '../theme.js';

const NAMES: { [theme in Theme]: string } = { system: 'System', light: 'Light', dark: 'Dark' };

export function ThemeSelect() {
  const [theme, setTheme] = useState<Theme>(() => storedTheme(window.localStorage));
  return (
    <label class="theme">
      Theme
      <select
        value={theme}
        onChange={(event) => {
          const next = event.currentTarget.value as Theme;
          setTheme(next);
          applyTheme(next, document.documentElement, window.localStorage);
        }}
      >
        {THEMES.map((each) => (
          <option key={each} value={each}>
            {NAMES[each]}
          </option>
        ))}
      </select>
    </label>
  );
}
