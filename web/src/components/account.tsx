/** The foot of the session list: your usage today and this month (`GET /usage`), the theme, and Sign out. */
import type { Api } from '../api/client.js';
import { unknownCostNote, usageReportText } from '../format.js';
import { useUsage } from '../hooks/use-usage.js';
import { ThemeSelect } from './theme-select.js';

export interface AccountProps {
  api: Api;
  /** Changes when a turn ended: the usage is read again. */
  turnsEnded: number;
  onSignOut(): void;
}

export function Account({ api, turnsEnded, onSignOut }: AccountProps) {
  const usage = useUsage(api, turnsEnded);
  return (
    <footer class="account">
      {usage !== null && (
        <p class="usage" data-usage title={unknownCostNote(usage) ?? undefined}>
          {usageReportText(usage)}
        </p>
      )}
      <ThemeSelect />
      <button type="button" class="link" onClick={onSignOut}>
        Sign out
      </button>
    </footer>
  );
}
