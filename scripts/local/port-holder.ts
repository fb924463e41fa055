/**
 * What holds a local port, when it can be told: panto's own local stack (another `npm start`,
 * whose `GET /health` answers with its version and table) or a Vite dev server (what
 * `npx sst dev` runs the web client in, on the same port 3000) — so that `npm start` can say
 * which program to stop, or that the two run side by side with `PORT`.
 */

/** How long each probe may take: a program that holds a port but does not answer HTTP is "another program". */
const PROBE_TIMEOUT_MS = 1000;

/** The program listening on 127.0.0.1:`port`, in words, or undefined when it cannot be told. */
export async function describePortHolder(port: number): Promise<string | undefined> {
  const base = `http://127.0.0.1:${port}`;
  const health = await probe(`${base}/health`);
  // A body that is not JSON is not panto's answer.
  if (health?.ok && isPantoHealth(await health.json().catch(() => undefined))) {
    return `panto's local stack (another npm start: ${base}/health answers)`;
  }
  const vite = await probe(`${base}/@vite/client`);
  const isVite = vite?.ok === true && /javascript/.test(vite.headers.get('content-type') ?? '');
  await vite?.body?.cancel();
  return isVite ? "a Vite dev server (npx sst dev runs the web client's there, as does npm run dev in web/)" : undefined;
}

async function probe(url: string): Promise<Response | undefined> {
  try {
    return await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch {
    // Not HTTP, or no answer in time: the holder cannot be told, which the caller says.
    return undefined;
  }
}

function isPantoHealth(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const fields = body as Record<string, unknown>;
  return typeof fields.status === 'string' && typeof fields.version === 'string' && typeof fields.table === 'string';
}
