/**
 * CLI benchmarks (issue 15): what rendering markdown adds to a streamed answer and to
 * start-up, against writing the text as it is; resolving a short id among many sessions,
 * against the core's prefix resolver; loading a full input history; the wall time the bash
 * sandbox (bubblewrap) adds to a command, against the same command run without it; what
 * checkpoints of the files cost a turn (bench/cli-checkpoints.ts).
 * Run alone: npx tsx --conditions=@panto/source bench/cli.ts
 */
import { resolveSessionId } from '@panto/core';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBashTool, startSandbox } from '@panto/cli';
import { HISTORY_SIZE, InputHistory, loadMarkdownRenderer, MarkdownStream, resolveSession } from '@panto/cli/internal';
import { median, printTable, time } from './util.js';
import { runCheckpointBench } from './cli-checkpoints.js';

const CLI_DIR = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const SESSIONS = 1000;

function answer(): string {
  const parts: string[] = [];
  for (let i = 0; i < 20; i++) {
    parts.push(`## Step ${i}\n\nThe function **reads** the file and returns its \`lines\`, then *filters* them.\n`);
    parts.push('- first point\n- second point with a [link](https://example.com)\n');
    parts.push('```ts\nexport function lines(text: string): string[] {\n  return text.split("\\n").filter((line) => line !== "");\n}\n```\n');
  }
  return parts.join('\n');
}

/** Milliseconds a fresh node process takes to import `specifiers` (median of 5). */
function importTime(specifiers: readonly string[]): number {
  const code = `const t = performance.now(); await Promise.all(${JSON.stringify(specifiers)}.map((s) => import(s))); console.log(performance.now() - t);`;
  const runs = Array.from({ length: 5 }, () => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: CLI_DIR, encoding: 'utf8' })));
  return median(runs);
}

export async function runCliBench(): Promise<void> {
  const text = answer();
  const deltas = text.match(/[\s\S]{1,20}/g) ?? [];
  const render = await loadMarkdownRenderer(100);
  const plain: number[] = [];
  const rendered: number[] = [];
  for (let i = 0; i < 20; i++) {
    plain.push(await time(async () => void deltas.reduce((out, delta) => out + delta, '')));
    rendered.push(
      await time(async () => {
        let out = '';
        const stream = new MarkdownStream(render, (chunk) => (out += chunk));
        for (const delta of deltas) stream.push(delta);
        stream.flush();
      }),
    );
  }
  const importPlain = importTime(['node:readline']);
  const importMarkdown = importTime(['marked', 'marked-terminal']);

  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-cli-'));
  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const id = `01a22fd6-${String(i).padStart(4, '0')}-7abc-8def-${(0x100000000000 + i * 7919).toString(16).slice(-12)}`;
      ids.push(id);
      await writeFile(join(dir, `${id}.jsonl`), `${JSON.stringify({ type: 'session', version: 2, id, timestamp: new Date().toISOString() })}\n`);
    }
    const target = ids[SESSIONS / 2]!;
    const byPrefix = median(await Promise.all(Array.from({ length: 10 }, () => time(() => resolveSessionId(dir, target.slice(0, 13))))));
    const byShort = median(await Promise.all(Array.from({ length: 10 }, () => time(() => resolveSession(dir, target.slice(-8))))));

    const historyFile = join(dir, 'history.jsonl');
    await writeFile(historyFile, Array.from({ length: HISTORY_SIZE }, (_, i) => `${JSON.stringify(`prompt ${i}: ${'words '.repeat(30)}`)}\n`).join(''));
    const historyLoad = median(await Promise.all(Array.from({ length: 10 }, () => time(() => InputHistory.load(historyFile)))));

    printTable('cli: markdown, short ids, history', [
      [`stream a ${Math.round(text.length / 1024)} KB answer in ${deltas.length} deltas, plain`, `${median(plain).toFixed(2)} ms`],
      [
        '… rendered a block at a time (marked-terminal)',
        `${median(rendered).toFixed(1)} ms (${(median(rendered) / Math.max(0.001, median(plain))).toFixed(0)}×)`,
      ],
      ['import at start-up: node:readline (baseline)', `${importPlain.toFixed(1)} ms`],
      ['… marked + marked-terminal (TTY runs only)', `${importMarkdown.toFixed(1)} ms`],
      [`resolve among ${SESSIONS} sessions: core id prefix`, `${byPrefix.toFixed(2)} ms`],
      ['… short id (end of the id) or prefix', `${byShort.toFixed(2)} ms (${(byShort / byPrefix).toFixed(2)}×)`],
      [`load an input history of ${HISTORY_SIZE} prompts`, `${historyLoad.toFixed(2)} ms`],
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await runSandboxBench();
  await runCheckpointBench();
}

/**
 * The bash tool running `true` in the workspace-write sandbox, against the same tool without one
 * (median of 40 each): in an empty folder, and in a project of 2,000 folders and 20,000 files
 * (plus a node_modules of as many, which is not walked), where each command walks the project's
 * folders for the files other programs run on their own before and after it.
 */
async function runSandboxBench(): Promise<void> {
  const rows: [string, string][] = [];
  for (const size of ['empty', 'large'] as const) {
    const cwd = await mkdtemp(join(tmpdir(), 'panto-bench-sandbox-'));
    if (size === 'large') await largeProject(cwd);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd };
    const started = await startSandbox({ mode: 'workspace-write', allowNetwork: false, cwd, home: cwd, dataDir: join(cwd, '.panto'), env, show: String });
    try {
      if (started.sandbox === undefined) {
        printTable('cli: bash sandbox', [['skipped', started.notices.join(' ') || 'no sandbox']]);
        return;
      }
      const context = { signal: new AbortController().signal, toolCallId: 'bench' };
      const tools = { plain: createBashTool({ cwd, env }), sandboxed: createBashTool({ cwd, env, sandbox: started.sandbox }) };
      const runs: Record<keyof typeof tools, number[]> = { plain: [], sandboxed: [] };
      for (let i = 0; i < 45; i++) {
        for (const kind of ['plain', 'sandboxed'] as const) {
          const took = await time(() => tools[kind].execute({ command: 'true' }, context));
          if (i >= 5) runs[kind].push(took);
        }
      }
      const plain = median(runs.plain);
      const sandboxed = median(runs.sandboxed);
      const where = size === 'empty' ? 'an empty folder' : 'a folder of 2,000 folders and 20,000 files';
      rows.push(
        [`bash \`true\` in ${where}, no sandbox (baseline)`, `${plain.toFixed(2)} ms`],
        ['… in the workspace-write sandbox (bwrap)', `${sandboxed.toFixed(2)} ms (${(sandboxed / plain).toFixed(2)}×, +${(sandboxed - plain).toFixed(2)} ms)`],
      );
    } finally {
      await started.close();
      await rm(cwd, { recursive: true, force: true });
    }
  }
  printTable('cli: bash sandbox', rows);
}

/** 2,000 folders of 10 files in the project, a nested .git and .envrc, and node_modules with as many again. */
async function largeProject(cwd: string): Promise<void> {
  for (const top of ['src', 'node_modules']) {
    for (let i = 0; i < 2000; i++) {
      const folder = join(cwd, top, `d${Math.floor(i / 50)}`, `e${i}`);
      await mkdir(folder, { recursive: true });
      await Promise.all(Array.from({ length: 10 }, (_, j) => writeFile(join(folder, `f${j}.ts`), 'export {};\n')));
    }
  }
  await mkdir(join(cwd, 'src', 'd1', '.git'), { recursive: true });
  await writeFile(join(cwd, 'src', 'd2', '.envrc'), 'export A=1\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCliBench();
