/**
 * Folder trust with the built `panto`: a folder whose `.panto/extensions/` holds an extension
 * that writes a marker file when it is loaded and whose `.panto/mcp.json` starts a server
 * that writes another. Without trust neither runs (`-p` says what it skipped and how to run
 * it); `--trust` runs both; an interactive run asks "Trust this folder? [y/N]", naming them,
 * and remembers the answer for the folder's real path (a renamed folder asks again).
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto, until } from './cli-harness.js';
import { hasScript, startPtyPanto } from './pty-harness.js';
import { EXTENSION_MARKER, MCP_MARKER, markers, projectWithCode } from './support/folder-code.js';

const e2e = fakeServerSandbox();

describe('folder trust', { timeout: 90_000 }, () => {
  it('panto -p without trust runs neither, and says what it skipped and how to run it; with --trust both run', async () => {
    const { cwd } = e2e.box;
    await projectWithCode(cwd);
    e2e.server.enqueue({ text: 'Hi.' }, { text: 'Hi again.' });
    const { args, env } = e2e.openai();

    const skipped = await runPanto([...args, '-p', 'hello'], { cwd, env });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toBe('Hi.\n');
    expect(markers(cwd)).toEqual([]);
    expect(skipped.stderr).toContain(
      `panto: skipped this folder's own code (this folder is not trusted): extension .panto/extensions/marker.ts; ` +
        `MCP server "marker" (.panto/mcp.json): ${process.execPath} -e `,
    );
    expect(skipped.stderr).toContain('To run it: panto --trust (this run), or /trust yes.');
    // Nothing was asked and nothing remembered.
    expect(existsSync(join(e2e.box.home, 'trusted-folders.json'))).toBe(false);

    const trusted = await runPanto([...args, '--trust', '-p', 'hello'], { cwd, env });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).not.toContain('skipped');
    await until('both markers to be written', () => markers(cwd).length === 2);
    expect(existsSync(join(e2e.box.home, 'trusted-folders.json'))).toBe(false);
  });

  it('piped input never asks either', async () => {
    const { cwd } = e2e.box;
    await projectWithCode(cwd);
    const { args, env } = e2e.openai();
    const result = await runPanto(args, { cwd, env, stdin: '/trust\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('Trust this folder?');
    expect(result.stdout).toContain('trust     not decided yet\ncode      skipped this run:\n            extension .panto/extensions/marker.ts\n');
    expect(markers(cwd)).toEqual([]);
  });

  it.skipIf(!hasScript)('an interactive run asks, naming what would run, and remembers the answer for the real path; a renamed folder asks again', async () => {
    const { cwd, home } = e2e.box;
    await projectWithCode(cwd);
    const { args, env } = e2e.openai();

    const first = startPtyPanto(args, { cwd, env });
    try {
      await first.see('Trust this folder? [y/N]');
      expect(first.screen()).toContain('This folder has code of its own that panto would run with your rights:');
      expect(first.screen()).toContain('  extension .panto/extensions/marker.ts');
      expect(first.screen()).toMatch(/ {2}MCP server "marker" \(\.panto\/mcp\.json\): .* -e /);
      expect(markers(cwd)).toEqual([]);
      first.type('y\r');
      await first.see('/help for commands');
      await until('both markers to be written', () => markers(cwd).length === 2);
      first.type('/quit\r');
      expect(await first.exited).toBe(0);
    } finally {
      first.kill();
    }
    const file = join(home, 'trusted-folders.json');
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).folders)).toEqual([cwd]);

    // Remembered: the next run does not ask, and runs the code.
    for (const marker of [EXTENSION_MARKER, MCP_MARKER]) await rm(join(cwd, marker));
    const second = startPtyPanto(args, { cwd, env });
    try {
      await second.see('/help for commands');
      await until('both markers to be written again', () => markers(cwd).length === 2);
      second.type('/trust\r');
      await second.see('code      runs this run:');
      second.type('/quit\r');
      expect(await second.exited).toBe(0);
      expect(second.screen()).not.toContain('Trust this folder?');
    } finally {
      second.kill();
    }

    // The same folder under another name is another folder: asked again; no is remembered too.
    const renamed = `${cwd}-renamed`;
    await rename(cwd, renamed);
    await projectWithCode(renamed);
    for (const marker of [EXTENSION_MARKER, MCP_MARKER]) await rm(join(renamed, marker), { force: true });
    const third = startPtyPanto(args, { cwd: renamed, env });
    try {
      await third.see('Trust this folder? [y/N]');
      third.type('n\r');
      await third.see("panto: skipped this folder's own code (not trusted)");
      third.type('/quit\r');
      expect(await third.exited).toBe(0);
    } finally {
      third.kill();
    }
    expect(markers(renamed)).toEqual([]);
    expect(JSON.parse(await readFile(file, 'utf8')).folders[renamed]).toMatchObject({ trusted: false });
    await rename(renamed, cwd);
  });
});
