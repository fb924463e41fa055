/**
 * `panto acp`: the ACP server (acp/) on stdin and stdout, with sessions started exactly as
 * the terminal starts them (start-agent.ts: the sandbox, folder trust, checkpoints,
 * extensions, MCP servers, the system prompt and AGENTS.md of the session's folder) — the
 * client standing in for the terminal: it is asked before calls that need approval, and
 * nothing is asked of (or read from) stdin, which is the protocol's. stdout carries only the
 * protocol; everything a terminal would say goes to stderr (an editor's agent log).
 */
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { resolveSessionId } from '@panto/core';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { ACPHost, HostedSession, HostedSessionRequest, ListedSession } from '../acp/host.js';
import { createACPServer } from '../acp/server.js';
import { CliError, EXIT_OK } from '../errors.js';
import { findSessions } from '../session/list-sessions.js';
import { openSession } from '../session/open-session.js';
import { openSwitchableSession, type SwitchableSession } from '../session/switchable-store.js';
import { reportTurn } from '../ui/render-turn.js';
import { Terminal } from '../ui/terminal.js';
import { CLI_VERSION } from '../version.js';
import type { CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';
import { runPlaces, startingPrompt } from './run-places.js';
import { releaseHeld, startAgent, type HeldResources } from './start-agent.js';

/**
 * Serves ACP until the client closes stdin (or the connection fails); then every session
 * is closed (a running prompt is cancelled; what it committed stays). Resolves to 0.
 */
export async function runACPMode(given: CliOptions, environment: CliEnvironment): Promise<number> {
  const { stdin, stdout } = environment;
  if (!(stdin instanceof Readable) || !(stdout instanceof Writable)) throw new CliError('panto acp needs stdin and stdout as streams');
  const log = new Terminal(environment.stderr, environment.stderr, environment.env);
  const options = pathsFromHere(given, environment.cwd);
  // Whatever else writes to the console (an extension's console.log) must not land in the protocol.
  const restoreConsole = stdout === process.stdout ? consoleToStderr() : () => undefined;
  const host: ACPHost = {
    start: (request) => startHostedSession(request, options, environment, log),
    list: (cwd) => listSessions(cwd, options, environment),
    log: (line) => log.note(line),
  };
  const server = createACPServer(host, CLI_VERSION);
  const connection = server.app.connect(ndJsonStream(Writable.toWeb(stdout), Readable.toWeb(stdin) as ReadableStream<Uint8Array>));
  log.note(`panto ${CLI_VERSION}: serving the Agent Client Protocol on stdin and stdout`);
  try {
    await connection.closed;
  } finally {
    await server.closeAll();
    restoreConsole();
  }
  return EXIT_OK;
}

/** The flags that name files, resolved against the folder panto was started in (sessions have folders of their own). */
function pathsFromHere(options: CliOptions, cwd: string): CliOptions {
  const system = options.system?.startsWith('@') ? `@${resolve(cwd, options.system.slice(1))}` : options.system;
  return {
    ...options,
    extensions: options.extensions.map((path) => resolve(cwd, path)),
    ...(options.sessionDir === undefined ? {} : { sessionDir: resolve(cwd, options.sessionDir) }),
    ...(system === undefined ? {} : { system }),
  };
}

/** A session's agent, started as the terminal starts one, in the session's folder. */
async function startHostedSession(request: HostedSessionRequest, options: CliOptions, base: CliEnvironment, log: Terminal): Promise<HostedSession> {
  // Per session: its folder; no Ctrl-C of its own (the client cancels), and nothing ever exits the server.
  const environment: CliEnvironment = { ...base, cwd: request.cwd, onInterrupt: () => () => undefined, forceExit: () => undefined };
  const places = runPlaces(options, environment);
  const { systemPrompt, contextFiles } = await startingPrompt(options.system, places, environment.env, log);
  const session = await openClientSession(request.sessionId, places);
  const held: HeldResources = {};
  try {
    const { running, danglingUser } = await startAgent(
      {
        options,
        environment,
        places,
        terminal: log,
        session,
        systemPrompt,
        contextFiles,
        print: false,
        client: { askApproval: request.askApproval, toolStarting: request.toolStarting, mcpServers: request.mcpServers },
      },
      held,
    );
    running.onIdleInterrupt = () => undefined;
    running.checkpoints?.warmUp();
    return {
      sessionId: running.agent.sessionStore.sessionId(),
      cwd: places.cwd,
      danglingUser,
      messages: () => running.agent.conversation.messages,
      turn: async (text, turn) => {
        const result = await running.turn(text, 'print', turn);
        reportTurn(log, result);
        return result;
      },
      close: async () => {
        await running.checkpoints?.settle();
        await releaseHeld(held);
      },
    };
  } catch (error) {
    await releaseHeld(held);
    throw error;
  }
}

/** A new session of the folder, or its session `sessionId` (a full id; SessionNotFoundError when the folder has none). */
async function openClientSession(sessionId: string | undefined, places: RunPlaces): Promise<SwitchableSession> {
  const resume = sessionId === undefined ? undefined : (await resolveSessionId(places.sessionDir, sessionId)).file;
  return openSwitchableSession({ continue: false, noSession: false, ...(resume === undefined ? {} : { resume }) }, (request) =>
    openSession(request, { cwd: places.cwd, sessionDir: places.sessionDir, sessionsRoot: places.sessionsRoot }),
  );
}

/** The stored sessions of `cwd`'s folder, or of every folder (those whose folder name still says the folder). */
async function listSessions(cwd: string | undefined, options: CliOptions, environment: CliEnvironment): Promise<ListedSession[]> {
  const places = runPlaces(options, { ...environment, cwd: cwd ?? environment.cwd });
  const found = await findSessions(cwd === undefined ? { sessionsRoot: places.sessionsRoot } : { dir: places.sessionDir });
  return found.flatMap((session) => {
    const folder = cwd ?? session.folder;
    return folder === undefined ? [] : [{ sessionId: session.id, cwd: folder, title: session.firstPrompt, updatedAt: session.modified.toISOString() }];
  });
}

/** Sends console.log / info / debug to stderr; returns the undo. */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, saved);
}
