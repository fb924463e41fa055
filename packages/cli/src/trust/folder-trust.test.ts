import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { FolderTrust, TRUST_QUESTION } from './folder-trust.js';
import { TrustedFolders } from './trusted-folders.js';

const CODE = ['extension .panto/extensions/lint.ts', 'MCP server "db" (.panto/mcp.json): node db.js'];
const NOW = () => new Date('2026-12-02T10:00:00.000Z');

let dataDir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: dataDir, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

function trust(options: { code?: readonly string[]; files?: Record<string, string>; flag?: boolean; folder?: string } = {}) {
  return new FolderTrust({
    folder: options.folder ?? '/src/app',
    code: options.code ?? CODE,
    ...(options.files === undefined ? {} : { files: options.files }),
    store: new TrustedFolders(dataDir, NOW),
    trustFlag: options.flag ?? false,
  });
}

/** An AskTrust that answers `answer` and records what it was shown. */
function answering(answer: boolean) {
  const asked: (readonly string[])[] = [];
  const ask = async (lines: readonly string[]) => {
    asked.push(lines);
    return answer;
  };
  return { asked, ask };
}

describe('FolderTrust', () => {
  it('asks once, naming what would run, and remembers the answer in an owner-only file keyed by the real path', async () => {
    const { asked, ask } = answering(true);
    const first = trust();
    expect(await first.decide(ask)).toBeUndefined();
    expect(first.trusted).toBe(true);
    expect(asked).toEqual([['This folder has code of its own that panto would run with your rights:', `  ${CODE[0]}`, `  ${CODE[1]}`]]);
    const file = join(dataDir, 'trusted-folders.json');
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      folders: { '/src/app': { trusted: true, decided: '2026-12-02T10:00:00.000Z', code: CODE, files: {} } },
    });

    const again = answering(false);
    const second = trust();
    expect(await second.decide(again.ask)).toBeUndefined();
    expect(second.trusted).toBe(true);
    expect(again.asked).toEqual([]);
    // Another path (the folder moved or renamed) is another folder.
    const moved = trust({ folder: '/src/app-renamed' });
    expect(await moved.decide(undefined)).toMatch(/^panto: skipped this folder's own code \(this folder is not trusted\): /);
    expect(moved.trusted).toBe(false);
  });

  it('remembers a no: skips without asking again, and says how to change it', async () => {
    await trust().decide(answering(false).ask);
    const { asked, ask } = answering(true);
    const later = trust();
    expect(await later.decide(ask)).toBe(
      `panto: skipped this folder's own code (you chose not to trust this folder): ${CODE.join('; ')}. To run it: /trust yes.`,
    );
    expect(asked).toEqual([]);
    expect(later.trusted).toBe(false);
  });

  it('never asks without someone to ask (-p, piped input), and says what it skipped and how to run it', async () => {
    const untrusted = trust();
    expect(await untrusted.decide(undefined)).toBe(
      `panto: skipped this folder's own code (this folder is not trusted): ${CODE.join('; ')}. To run it: panto --trust (this run), or /trust yes.`,
    );
    await expect(stat(join(dataDir, 'trusted-folders.json'))).rejects.toThrow();
  });

  it('--trust runs it this time without asking or remembering; a folder without code of its own is never asked about', async () => {
    const flagged = trust({ flag: true });
    expect(await flagged.decide(answering(false).ask)).toBeUndefined();
    expect(flagged.trusted).toBe(true);
    await expect(stat(join(dataDir, 'trusted-folders.json'))).rejects.toThrow();
    const { asked, ask } = answering(true);
    expect(await trust({ code: [] }).decide(ask)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks again when the folder has code it did not have when it was trusted, marking what is new', async () => {
    await trust({ code: [CODE[0]!] }).decide(answering(true).ask);
    const { asked, ask } = answering(true);
    expect(await trust().decide(ask)).toBeUndefined();
    expect(asked).toEqual([
      ['This folder has code panto would run with your rights, some of it new or changed since you trusted the folder:', `  ${CODE[0]}`, `  ${CODE[1]}  (new)`],
    ]);
    expect(await trust({ code: [...CODE, 'extension .panto/extensions/new.ts'] }).decide(undefined)).toMatch(/it changed since you trusted the folder/);
  });

  it('/trust shows the state and what runs; yes and no are remembered', async () => {
    const folder = trust();
    await folder.decide(undefined);
    expect(await folder.describe()).toBe(
      [
        'folder    /src/app',
        'trust     not decided yet',
        'code      skipped this run:',
        `            ${CODE[0]}`,
        `            ${CODE[1]}`,
        '/trust yes trusts this folder, /trust no stops trusting it (remembered; it applies from the next start).',
      ].join('\n'),
    );
    expect(await folder.set(true)).toBe('trusted: /src/app. Its code runs from the next start of panto here.');
    expect(await folder.describe()).toContain('trust     trusted (since 2026-12-02T10:00:00.000Z)');
    const next = trust();
    expect(await next.decide(undefined)).toBeUndefined();
    expect(await next.set(false)).toBe('no longer trusted: /src/app. What already runs stops with this panto; the next start skips it.');
    expect((await new TrustedFolders(dataDir).get('/src/app'))?.trusted).toBe(false);
  });

  it('trusts nothing from a trust file that is not one, says so, and leaves the file as it is', async () => {
    const file = join(dataDir, 'trusted-folders.json');
    await writeFile(file, '{"folders": []}');
    const { asked, ask } = answering(true);
    const folder = trust();
    expect(await folder.decide(ask)).toMatch(
      /^panto: skipped this folder's own code \(.*trusted-folders\.json is not a list of trusted folders .*\): .* To run it: fix the file, or panto --trust \(this run\)\.$/,
    );
    expect(folder.trusted).toBe(false);
    expect(asked).toEqual([]);
    expect(await readFile(file, 'utf8')).toBe('{"folders": []}');
  });

  it('the question is the one the issue names', () => {
    expect(TRUST_QUESTION).toBe('Trust this folder? [y/N]');
  });

  it('asks again when a file the code runs changed since it was trusted (a sandboxed command may have written it), and -p skips it naming the file', async () => {
    await trust({ files: { 'tools/mcp.mjs': 'aaa' } }).decide(answering(true).ask);
    expect(await trust({ files: { 'tools/mcp.mjs': 'aaa' } }).decide(undefined)).toBeUndefined();
    const { asked, ask } = answering(false);
    await trust({ files: { 'tools/mcp.mjs': 'bbb' } }).decide(ask);
    expect(asked[0]?.at(-1)).toBe('  changed since: tools/mcp.mjs');
    await trust({ files: { 'tools/mcp.mjs': 'aaa' } }).set(true);
    const skipped = await trust({ files: { 'tools/mcp.mjs': 'ccc' } }).decide(undefined);
    expect(skipped).toMatch(/tools\/mcp\.mjs changed since you trusted the folder/);
  });

  it('writes a server name’s control characters as escapes in what it skipped and in /trust', async () => {
    const code = ['MCP server "lint\u001b[2K\rok" (.panto/mcp.json): node x.js'];
    const skipped = await trust({ code }).decide(undefined);
    expect(skipped).toContain('lint\\e[2K\\rok');
    expect(skipped).not.toMatch(/[\u001b\r]/);
    const shown = await trust({ code }).describe();
    expect(shown).toContain('lint\\e[2K\\rok');
    expect(shown).not.toMatch(/[\u001b\r]/);
  });
});
