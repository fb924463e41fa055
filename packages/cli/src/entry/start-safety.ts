/**
 * What keeps a run safe in any folder, decided before anything of the folder's runs: the
 * sandbox bash commands run in (and the approvals that follow it), and whether the folder's
 * own code — its extensions and MCP servers — runs at all.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { Approvals, type ApprovalMode } from '../agent/approvals.js';
import { SandboxGrants } from '../sandbox/policy.js';
import { startSandbox, type StartedSandbox } from '../sandbox/start-sandbox.js';
import { FolderTrust, type AskTrust } from '../trust/folder-trust.js';
import { describeProjectCode, projectCodeFiles } from '../extensions/project-code.js';
import { TrustedFolders } from '../trust/trusted-folders.js';
import { terminalApproval } from '../ui/approval-prompt.js';
import { terminalTrustPrompt } from '../ui/trust-prompt.js';
import { displayPath } from '../user-paths.js';
import type { AgentStart } from './agent-start.js';

/** Where the folder's and the user's extensions and MCP configs are. */
export interface CodePlaces {
  extensionDirs: { global: string; project: string };
  mcpFiles: { global: string; project: string };
}

export function codePlaces(start: AgentStart): CodePlaces {
  const { cwd, dataDir } = start.places;
  return {
    extensionDirs: { global: join(dataDir, 'extensions'), project: join(cwd, '.panto', 'extensions') },
    mcpFiles: { global: join(dataDir, 'mcp.json'), project: join(cwd, '.panto', 'mcp.json') },
  };
}

/** Whether a person is there to answer questions: not `-p`, and the input is a terminal. */
export function isInteractive(start: AgentStart): boolean {
  return !start.print && (start.environment.lineInput?.interactive ?? start.environment.stdin.isTTY === true);
}

/** The sandbox of the run (notices said once, here), the grants it hands the bash tool, and the approvals that follow it. */
export async function startGuardedTools(
  start: AgentStart,
  interrupt: () => void,
): Promise<{ started: StartedSandbox; grants: SandboxGrants; approvals: Approvals }> {
  const { options, environment, places, terminal } = start;
  const started = await startSandbox({
    mode: options.sandbox ?? 'workspace-write',
    allowNetwork: options.allowNetwork,
    cwd: places.cwd,
    home: places.home,
    dataDir: places.dataDir,
    env: environment.env,
    show: (path) => displayPath(path, places.cwd, places.home),
    ...(environment.sandboxSupport === undefined ? {} : { support: environment.sandboxSupport }),
  });
  for (const notice of started.notices) terminal.warn(notice);
  const grants = new SandboxGrants();
  const sandbox = started.sandbox === undefined ? undefined : { sandbox: started.sandbox, grants, cwd: places.cwd };
  return { started, grants, approvals: new Approvals(approvalMode(start, interrupt), sandbox) };
}

/** How calls that need approval are decided: `--yolo` runs them, a person is asked, and where nobody can be they are refused. */
function approvalMode(start: AgentStart, interrupt: () => void): ApprovalMode {
  const { options, environment } = start;
  if (options.yolo) return { type: 'yolo' };
  if (start.print) return { type: 'refuse', where: 'panto -p' };
  if (!isInteractive(start)) return { type: 'refuse', where: 'panto with piped input' };
  return { type: 'ask', ask: environment.askApproval ?? terminalApproval(environment.stdin, start.terminal, interrupt) };
}

/**
 * The folder's trust for this run: what it would run, and the user's decision (asked on the
 * terminal when nobody decided yet and someone is there; `-p` and piped input never ask).
 * What is skipped, and how to run it, is said on stderr.
 */
export async function decideFolderTrust(start: AgentStart, places: CodePlaces): Promise<FolderTrust> {
  const { environment, terminal } = start;
  const { cwd, home, dataDir } = start.places;
  const project = {
    extensionsDir: places.extensionDirs.project,
    mcpFile: places.mcpFiles.project,
    userExtensionsDir: places.extensionDirs.global,
    userMCPFile: places.mcpFiles.global,
    show: (path: string) => displayPath(path, cwd, home),
  };
  const code = await describeProjectCode(project);
  const files = await projectCodeFiles(project, cwd);
  const trust = new FolderTrust({ folder: await realpath(cwd), code, files, store: new TrustedFolders(dataDir), trustFlag: start.options.trust });
  const ask: AskTrust | undefined = isInteractive(start) ? (environment.askTrust ?? terminalTrustPrompt(environment.stdin, terminal)) : undefined;
  const skipped = await trust.decide(ask);
  if (skipped !== undefined) terminal.warn(skipped);
  return trust;
}
