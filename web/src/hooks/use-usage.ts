/** The signed-in user's usage (`GET /usage`), read at sign-in and again whenever `after` changes (a turn ended). */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { UsageReport } from '../api/wire.js';

/** Null until the server answered (or when it could not: the page shows no usage then, it is not worth an alert). */
export function useUsage(api: Api | null, after: unknown): UsageReport | null {
  const [report, setReport] = useState<UsageReport | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `after` is when to read again, not what is read
  useEffect(() => {
    if (api === null) return;
    let live = true;
    api.usage().then(
      (answer) => live && setReport(answer),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, after]);
  return report;
}
