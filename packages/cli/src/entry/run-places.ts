/** Where a run keeps its files, and the system prompt it starts with: what every mode computes first. */
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import { findContextFiles, withContextFiles } from '../agent/context-files.js';
import { resolveSystemPrompt } from '../agent/system-prompt.js';
import { pantoHome, sessionDirFor } from '../session/session-dir.js';
import type { Terminal } from '../ui/terminal.js';
import type { CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';

/** The places of a run in `environment.cwd`. */
export function runPlaces(options: CliOptions, environment: CliEnvironment): RunPlaces {
  const cwd = resolve(environment.cwd);
  const dataDir = pantoHome(environment.env, cwd, environment.homedir);
  return {
    cwd,
    home: environment.homedir ?? osHomedir(),
    dataDir,
    sessionDir: options.sessionDir ? resolve(cwd, options.sessionDir) : sessionDirFor(cwd, environment.env, environment.homedir),
    sessionsRoot: join(dataDir, 'sessions'),
  };
}

/**
 * The system prompt in force in `places.cwd` (`--system`, or the default) with the folder's
 * AGENTS.md files, and those files; unreadable or refused ones are warned about on
 * `terminal`. `env` names what the sandbox hides, which AGENTS.md may not point to either.
 */
export async function startingPrompt(
  system: string | undefined,
  places: RunPlaces,
  env: Readonly<Record<string, string | undefined>>,
  terminal: Terminal,
): Promise<{ systemPrompt: string; contextFiles: string[] }> {
  const contextFiles = await findContextFiles({ cwd: places.cwd, pantoHome: places.dataDir, home: places.home, env });
  for (const problem of contextFiles.problems) terminal.warn(`panto: ${problem}`);
  const systemPrompt = withContextFiles(await resolveSystemPrompt(system, places.cwd), contextFiles.files);
  return { systemPrompt, contextFiles: contextFiles.files.map((file) => file.path) };
}
