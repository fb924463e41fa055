/**
 * The 13 behavioural contracts of the Claude Agent SDK's `SessionStore`, as its repository's
 * `examples/session-stores/shared/conformance.ts` states them (anthropics/claude-agent-sdk-typescript;
 * bun:test, not published, no licence that allows copying it), reproduced one for one under
 * vitest: same names, same steps, same expectations — entries compared deep-equal with object
 * keys sorted, as the original does. Runs against any store the factory makes.
 */
import { expect, it } from 'vitest';

type SessionKey = { projectKey: string; sessionId: string; subpath?: string };
type SessionStoreEntry = { type: string; [k: string]: unknown };
type SessionStore = {
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  listSessions?(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  delete?(key: SessionKey): Promise<void>;
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
};

const KEY: SessionKey = { projectKey: 'proj', sessionId: 'sess' };
const entry = (type: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({ type, ...extra });

/** JSON with every object's keys sorted: deep equality that ignores key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function expectEntries(actual: unknown, expected: SessionStoreEntry[]): void {
  expect(canonical(actual)).toBe(canonical(expected));
}

/** Registers the 13 contracts; `makeStore` must give a fresh, isolated store each call. */
export function sessionStoreContracts(makeStore: () => Promise<SessionStore>): void {
  it('append then load returns same entries in same order', async () => {
    const store = await makeStore();
    const entries = [entry('a', { n: 1, nested: { x: [1, 2] } }), entry('b', { n: 2 })];
    await store.append(KEY, entries);
    expectEntries(await store.load(KEY), entries);
  });

  it('load unknown key returns null', async () => {
    const store = await makeStore();
    expect(await store.load(KEY)).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
  });

  it('multiple append calls preserve call order', async () => {
    const store = await makeStore();
    await store.append(KEY, [entry('a')]);
    await store.append(KEY, [entry('b'), entry('c')]);
    await store.append(KEY, [entry('d')]);
    expectEntries(await store.load(KEY), [entry('a'), entry('b'), entry('c'), entry('d')]);
  });

  it('append([]) is a no-op', async () => {
    const store = await makeStore();
    await store.append(KEY, []);
    expect(await store.load(KEY)).toBeNull();
    await store.append(KEY, [entry('a')]);
    await store.append(KEY, []);
    expectEntries(await store.load(KEY), [entry('a')]);
  });

  it('subpath keys are stored independently of main', async () => {
    const store = await makeStore();
    await store.append(KEY, [entry('main')]);
    await store.append({ ...KEY, subpath: 'subagents/x' }, [entry('sub')]);
    expectEntries(await store.load(KEY), [entry('main')]);
    expectEntries(await store.load({ ...KEY, subpath: 'subagents/x' }), [entry('sub')]);
  });

  it('projectKey isolation', async () => {
    const store = await makeStore();
    const a = { projectKey: 'A', sessionId: 's' };
    const b = { projectKey: 'B', sessionId: 's' };
    await store.append(a, [entry('a')]);
    await store.append(b, [entry('b')]);
    expectEntries(await store.load(a), [entry('a')]);
    expectEntries(await store.load(b), [entry('b')]);
  });

  it('listSessions returns sessionIds for project', async () => {
    const store = await makeStore();
    if (!store.listSessions) return;
    await store.append({ projectKey: 'P', sessionId: 's1' }, [entry('a')]);
    await store.append({ projectKey: 'P', sessionId: 's2' }, [entry('b')]);
    await store.append({ projectKey: 'Q', sessionId: 's3' }, [entry('c')]);
    const ids = (await store.listSessions('P')).map((session) => session.sessionId).sort((a, b) => a.localeCompare(b));
    expect(ids).toEqual(['s1', 's2']);
    const listed = await store.listSessions('P');
    expect(listed.every((session) => session.mtime > 1e12)).toBe(true);
    expect(await store.listSessions('never-seen')).toEqual([]);
  });

  it('listSessions excludes subagent subpaths', async () => {
    const store = await makeStore();
    if (!store.listSessions) return;
    await store.append({ projectKey: 'P', sessionId: 's1', subpath: 'subagents/x' }, [entry('sub')]);
    const ids = (await store.listSessions('P')).map((session) => session.sessionId);
    expect(ids).not.toContain('s1');
  });

  it('delete main then load returns null', async () => {
    const store = await makeStore();
    if (!store.delete) return;
    await store.append(KEY, [entry('a')]);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeNull();
    await store.delete({ projectKey: 'x', sessionId: 'never' });
  });

  it('delete main cascades to subkeys', async () => {
    const store = await makeStore();
    if (!store.delete) return;
    await store.append(KEY, [entry('main')]);
    await store.append({ ...KEY, subpath: 'subagents/a' }, [entry('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [entry('sb')]);
    await store.append({ projectKey: 'proj', sessionId: 'other' }, [entry('o')]);
    await store.append({ projectKey: 'proj2', sessionId: 'sess' }, [entry('p2')]);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/b' })).toBeNull();
    expectEntries(await store.load({ projectKey: 'proj', sessionId: 'other' }), [entry('o')]);
    expectEntries(await store.load({ projectKey: 'proj2', sessionId: 'sess' }), [entry('p2')]);
    if (store.listSubkeys) expect(await store.listSubkeys(KEY)).toEqual([]);
  });

  it('delete with subpath removes only that subkey', async () => {
    const store = await makeStore();
    if (!store.delete) return;
    await store.append(KEY, [entry('main')]);
    await store.append({ ...KEY, subpath: 'subagents/a' }, [entry('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [entry('sb')]);
    await store.delete({ ...KEY, subpath: 'subagents/a' });
    expectEntries(await store.load(KEY), [entry('main')]);
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
    expectEntries(await store.load({ ...KEY, subpath: 'subagents/b' }), [entry('sb')]);
  });

  it('listSubkeys returns subpaths for the session', async () => {
    const store = await makeStore();
    if (!store.listSubkeys) return;
    await store.append({ ...KEY, subpath: 'subagents/a' }, [entry('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [entry('sb')]);
    await store.append({ projectKey: 'proj', sessionId: 'other', subpath: 'subagents/c' }, [entry('sc')]);
    const subs = (await store.listSubkeys(KEY)).sort((a, b) => a.localeCompare(b));
    expect(subs).toEqual(['subagents/a', 'subagents/b']);
  });

  it('listSubkeys excludes main transcript', async () => {
    const store = await makeStore();
    if (!store.listSubkeys) return;
    await store.append(KEY, [entry('main')]);
    expect(await store.listSubkeys(KEY)).toEqual([]);
    expect(await store.listSubkeys({ projectKey: 'x', sessionId: 'never' })).toEqual([]);
  });
}
