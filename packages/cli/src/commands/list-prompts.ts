/**
 * `panto -r <session> --list` (or `-c --list`): the prompts of one session, newest first, by
 * their short ids — what `--rewind` takes, without starting the agent. The session is read,
 * never written (a file outside the session folders is not imported).
 */
import { readLog, sessionCheckpointDir } from '../checkpoints/checkpoint-log.js';
import { EXIT_OK } from '../errors.js';
import { localTime } from '../session/list-sessions.js';
import { openSession } from '../session/open-session.js';
import { promptPreview, sessionPrompts } from '../session/prompt-ids.js';
import type { Terminal } from '../ui/terminal.js';

/** How much of a prompt a row shows. */
const PROMPT_PREVIEW = 60;

export interface ListPromptsOptions {
  /** Which session: `-c`, or `-r VALUE` (an id, a short id, a prefix, or a file). */
  session: { continue: true } | { resume: string };
  places: { cwd: string; sessionDir: string; sessionsRoot: string; dataDir: string };
  terminal: Terminal;
}

/**
 * Prints one row per prompt of the session's current path — short id, time, whether its
 * files have a checkpoint, its first words — newest first; then, on stderr, how to rewind.
 */
export async function listPromptsCommand(options: ListPromptsOptions): Promise<number> {
  const { terminal, places } = options;
  const opened = await openSession(
    { continue: 'continue' in options.session, noSession: true, ...('resume' in options.session ? { resume: options.session.resume } : {}) },
    { cwd: places.cwd, sessionDir: places.sessionDir, sessionsRoot: places.sessionsRoot },
  );
  if (!opened.resumed) {
    terminal.note(`no sessions for ${places.cwd} (in ${places.sessionDir})`);
    return EXIT_OK;
  }
  const sessionId = opened.store.sessionId();
  const prompts = sessionPrompts(await opened.store.loadTree());
  const checkpointDir = sessionCheckpointDir(places.dataDir, sessionId);
  const log = checkpointDir === undefined ? undefined : await readLog(checkpointDir);
  const saved = new Set(log?.records.filter((record) => record.kind === 'before').map((record) => record.prompt_id));
  if (prompts.onPath.length === 0) {
    terminal.note(`no prompts in session ${sessionId}`);
    return EXIT_OK;
  }
  const idWidth = Math.max(2, ...prompts.onPath.map((entry) => prompts.short.get(entry.id)!.length));
  terminal.result(`${'ID'.padEnd(idWidth)}  ${'TIME'.padEnd(16)}  FILES  PROMPT`);
  for (const entry of prompts.onPath) {
    const files = saved.has(entry.id) ? 'saved' : '-';
    terminal.result(
      `${prompts.short.get(entry.id)!.padEnd(idWidth)}  ${localTime(new Date(entry.timestamp))}  ${files.padEnd(5)}  ${promptPreview(entry, PROMPT_PREVIEW)}`,
    );
  }
  const elsewhere = prompts.all.length - prompts.onPath.length;
  const again = 'resume' in options.session ? `-r ${options.session.resume}` : '-c';
  terminal.note(`session ${sessionId}: the prompts of its current path, newest first (FILES saved: --rewind restores the files too)`);
  if (elsewhere > 0) terminal.note(`(${elsewhere} more on other branches, not listed)`);
  terminal.note(`to go back to before one: panto ${again} --rewind <ID>`);
  return EXIT_OK;
}
