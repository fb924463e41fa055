import { AbortedError, DEFAULT_MODELS, errorMessage, type ExtensionHost } from '@panto/core';
import type { MCPServerInfo } from '@panto/core/mcp';
import type { CommandContext, CommandOutcome, SlashCommand } from './command-context.js';
import { exportSessionFile } from '../session/export-session.js';
import { describeProviderChoice, parseModelSpec, type ProviderChoice } from '../agent/provider-choice.js';
import { formatUsage } from '../ui/render-turn.js';
import { costSuffix, describeCost, messagesCost, modelsText, sessionCost, uncataloguedNote } from '../agent/model-catalog.js';
import { formatSize } from '../tools/truncate.js';
import { filesLinkedOutside } from '../sandbox/hard-links.js';
import { TREE_COMMANDS } from './tree-commands.js';
import { REWIND_COMMAND } from './rewind-command.js';

export const COMMANDS: readonly { synopsis: string; summary: string }[] = [
  {
    synopsis: '/compact [instructions]',
    summary: 'summarise the conversation so far to free the context (optionally: what to keep)',
  },
  { synopsis: '/export [path]', summary: 'write the session as JSONL (default: $PANTO_HOME/exports/<session id>.jsonl)' },
  {
    synopsis: '/session',
    summary: 'show the session id, file, model, the AGENTS.md files loaded, message count, tokens and cost so far',
  },
  {
    synopsis: '/model [provider/model]',
    summary: `show the model, or switch (e.g. /model anthropic/${DEFAULT_MODELS.anthropic}, /model openai)`,
  },
  {
    synopsis: '/extensions',
    summary: 'list the extensions loaded (and those that failed), where from, and what they added',
  },
  { synopsis: '/mcp', summary: 'list the MCP servers, their status and their tools' },
  { synopsis: '/trust [yes|no]', summary: "show whether this folder's own extensions and MCP servers run; yes or no changes it (remembered)" },
  ...TREE_COMMANDS,
  REWIND_COMMAND,
  { synopsis: '/help', summary: 'show this help' },
  { synopsis: '/quit', summary: 'leave panto (also Ctrl-D, or Ctrl-C at an empty prompt)' },
];

/** The CLI's own command names, which extensions cannot take. */
export const BUILT_IN_COMMANDS: readonly string[] = [...COMMANDS.map((command) => command.synopsis.split(' ')[0]!.slice(1)), 'exit'];

/**
 * A line that is a command: `/name args…`. Lines starting with `//` are prompts that start
 * with `/` (the first `/` is dropped by the caller), and so is anything that does not look
 * like `/word`, e.g. `/etc/hosts is empty, why?`.
 */
export function parseSlashCommand(line: string): SlashCommand | undefined {
  const match = /^\/([a-z][a-z0-9-]*)(?:\s+([\s\S]*))?$/i.exec(line.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() };
}

/** Runs a command; problems are reported on the terminal, never thrown (except store failures). */
export async function runSlashCommand(command: SlashCommand, context: CommandContext): Promise<CommandOutcome> {
  const { terminal } = context;
  switch (command.name) {
    case 'quit':
    case 'exit':
      return 'quit';
    case 'help':
      terminal.result(helpText(context.extensions));
      return 'continue';
    case 'extensions':
      terminal.result(extensionsText(context));
      return 'continue';
    case 'mcp':
      await namedMCPTools(context);
      terminal.result(mcpText(context));
      return 'continue';
    case 'trust':
      await trustCommand(command.args, context);
      return 'continue';
    case 'session':
      terminal.result(
        `${sessionText(context)}\ncost      ${await sessionCost(context).then(describeCost, unreadableCost)}\ncheckpoints  ${(await context.checkpoints?.describe()) ?? 'none: not kept this run'}`,
      );
      return 'continue';
    case 'model':
      model(command.args, context);
      return 'continue';
    case 'export':
      await exportCommand(command.args, context);
      return 'continue';
    case 'compact':
      await compact(command.args, context);
      return 'continue';
    default:
      if (context.extensions.command(command.name) !== undefined) {
        await extensionCommand(command, context);
        return 'continue';
      }
      terminal.error(`unknown command /${command.name} — /help lists the commands (start a prompt with // to send a leading /)`);
      return 'continue';
  }
}

export function helpText(extensions?: ExtensionHost): string {
  const added = extensions?.commands() ?? [];
  const rows = [
    ...COMMANDS.map((command) => [command.synopsis, command.summary] as const),
    ...added.map((command) => [`/${command.name}`, `${command.description} (${command.source.path})`] as const),
  ];
  const width = Math.max(...rows.map(([synopsis]) => synopsis.length));
  const line = ([synopsis, summary]: readonly [string, string]) => `  ${synopsis.padEnd(width)}  ${summary}`;
  return [
    'Commands:',
    ...rows.slice(0, COMMANDS.length).map(line),
    ...(added.length > 0 ? ['', 'Extension commands:', ...rows.slice(COMMANDS.length).map(line)] : []),
    '',
    'Anything else is a prompt. Ctrl-C aborts a running turn (what was already said is kept);',
    'Ctrl-C at an empty prompt or Ctrl-D leaves. Start a prompt with // to begin it with /.',
  ].join('\n');
}

function sessionText(context: CommandContext): string {
  const { agent } = context;
  const settings = context.providerChoice();
  const file = context.sessionFile() ?? `(none: ${context.unsavedReason ?? 'not saved'})`;
  const messages = agent.conversation.messages;
  const counts = new Map<string, number>();
  for (const message of messages) counts.set(message.role, (counts.get(message.role) ?? 0) + 1);
  const breakdown = [...counts].map(([role, n]) => `${n} ${role}`).join(', ');
  return [
    `session   ${agent.sessionStore.sessionId()}`,
    `file      ${file}`,
    `folder    ${context.cwd}`,
    `sandbox   ${context.sandbox ? context.sandbox.mode : 'none: every bash, write and edit asks first'}`,
    ...hardLinkWarning(context),
    `model     ${describeProviderChoice(settings)}`,
    `context   ${context.contextFiles?.length ? context.contextFiles.join(', ') : 'no AGENTS.md loaded'}`,
    `messages  ${messages.length}${breakdown ? ` (${breakdown})` : ''}`,
    `usage     ${formatUsage(agent.conversation.usage())}`,
  ].join('\n');
}

/** Under workspace-write: the folder's files that are hard links to files outside it, which a command's write would change there too. */
function hardLinkWarning(context: CommandContext): string[] {
  if (context.sandbox?.mode !== 'workspace-write') return [];
  const linked = filesLinkedOutside(context.cwd);
  if (linked.count === 0) return [];
  const more = linked.complete ? '' : ' (or more: the walk stopped)';
  return [
    `warning   ${linked.count} file${linked.count === 1 ? ' is a hard link' : 's are hard links'} to files outside the folder${more}, e.g. ${linked.examples.join(', ')}:`,
    '          a command that writes one changes the file outside too (the sandbox cannot tell them apart)',
  ];
}

function model(args: string, context: CommandContext): void {
  const { terminal } = context;
  if (args === '') {
    terminal.result(modelsText(describeProviderChoice(context.providerChoice()), context.env ?? {}));
    return;
  }
  let settings: ProviderChoice;
  try {
    settings = parseModelSpec(args, context.providerChoice());
    context.switchProvider(settings);
  } catch (error) {
    terminal.error(`cannot switch to ${args}: ${errorMessage(error)}`);
    return;
  }
  terminal.result(`model: ${describeProviderChoice(context.providerChoice())}`);
  const unknown = uncataloguedNote(context.agent.provider.name, context.agent.provider.model);
  if (unknown !== undefined) terminal.note(unknown);
  if (context.agent.provider.name === 'offline') terminal.warn('the offline provider gives canned answers; no model is called');
}

async function exportCommand(args: string, context: CommandContext): Promise<void> {
  try {
    const result = await exportSessionFile(
      {
        sessionId: context.agent.sessionStore.sessionId(),
        sessionFile: context.sessionFile(),
        conversation: context.agent.conversation,
        cwd: context.cwd,
        ...(context.exportsDir === undefined ? {} : { exportsDir: context.exportsDir }),
      },
      args === '' ? undefined : args,
    );
    context.terminal.result(`exported ${result.entries} entries (${formatSize(result.bytes)}) to ${result.path}`);
  } catch (error) {
    context.terminal.error(`export failed: ${errorMessage(error)}`);
  }
}

async function compact(instructions: string, context: CommandContext): Promise<void> {
  const { agent, terminal } = context;
  const before = agent.conversation.length;
  terminal.spin('compacting…');
  let aborted = (): boolean => false;
  try {
    const result = await context.interruptible((signal) => {
      aborted = () => signal.aborted;
      return agent.compact(instructions === '' ? undefined : instructions, { signal });
    });
    terminal.stopSpinner();
    terminal.result(`compacted ${before} messages into a summary of ${result.summary.length} characters`);
    // The compaction message just added carries the provider and model that made it: its cost.
    const made = agent.conversation.messages.filter((message) => message.role === 'compaction').slice(-1);
    terminal.note(`  ${formatUsage(result.usage)}${costSuffix(messagesCost(made))}`);
  } catch (error) {
    terminal.stopSpinner();
    if (aborted() || error instanceof AbortedError) terminal.warn('compaction aborted; the conversation is unchanged');
    else terminal.error(`compaction failed: ${errorMessage(error)}; the conversation is unchanged`);
  }
}

/** `/trust`: the folder's trust and its code; `/trust yes` / `/trust no` remember a decision. */
async function trustCommand(args: string, context: CommandContext): Promise<void> {
  const { terminal, trust } = context;
  if (trust === undefined) {
    terminal.error('/trust: this panto has no working folder trust to show');
    return;
  }
  const answer = args.toLowerCase();
  try {
    if (answer === '') terminal.result(await trust.describe());
    else if (answer === 'yes' || answer === 'no') terminal.result(await trust.set(answer === 'yes'));
    else terminal.error(`/trust: expected yes or no, got ${JSON.stringify(args)}`);
  } catch (error) {
    terminal.error(`/trust failed: ${errorMessage(error)}`);
  }
}

/** Runs an extension's command; what it throws is reported, and panto carries on. */
async function extensionCommand(command: SlashCommand, context: CommandContext): Promise<void> {
  try {
    await context.extensions.runCommand(command.name, command.args);
  } catch (error) {
    context.terminal.stopSpinner();
    const source = context.extensions.command(command.name)?.source.path ?? '?';
    context.terminal.error(`/${command.name} failed (${source}): ${errorMessage(error)}`);
  }
}

function extensionsText(context: CommandContext): string {
  const records = context.extensions.records;
  if (records.length === 0) {
    return `no extensions loaded (looked in ${context.places.extensionDirs.join(' and ') || 'no folder'}; --extension <path> loads one)`;
  }
  const lines: string[] = [];
  for (const record of records) {
    if (record.status === 'failed') {
      lines.push(`✗ ${record.source.path}  (${record.source.origin})`, `    failed to load: ${firstLine(record.error.message)}`);
      continue;
    }
    lines.push(`✓ ${record.source.path}  (${record.source.origin})`);
    if (record.tools.length > 0) lines.push(`    tools     ${record.tools.join(', ')}`);
    if (record.commands.length > 0) lines.push(`    commands  ${record.commands.map((name) => `/${name}`).join(', ')}`);
    if (record.events.length > 0) lines.push(`    events    ${record.events.join(', ')}`);
  }
  return lines.join('\n');
}

/**
 * Waits for the servers still starting and names their tools (what the first turn does
 * before it registers them), so that `/mcp` lists a connected server's tools before any turn.
 */
async function namedMCPTools(context: CommandContext): Promise<void> {
  const { mcp, terminal } = context;
  if (mcp === undefined) return;
  if (mcp.info().some((server) => server.status === 'connecting')) terminal.spin('starting MCP servers…');
  try {
    await mcp.tools();
  } catch {
    // Each server's failure is in its status line.
  } finally {
    terminal.stopSpinner();
  }
}

function mcpText(context: CommandContext): string {
  const servers = context.mcp?.info() ?? [];
  if (servers.length === 0) return `no MCP servers configured (looked in ${context.places.mcpFiles.join(' and ') || 'no file'})`;
  return servers.map(serverText).join('\n');
}

const STATUS_MARK: Record<MCPServerInfo['status'], string> = {
  connected: '✓',
  connecting: '…',
  failed: '✗',
  closed: '-',
};

function serverText(server: MCPServerInfo): string {
  const lines = [`${STATUS_MARK[server.status]} ${server.name}  ${server.status} · ${server.transport} ${server.target}  (${server.source})`];
  if (server.error !== undefined) lines.push(`    ${server.error}`);
  if (server.status === 'failed' && server.stderr.length > 0) lines.push('    stderr:', ...server.stderr.slice(-5).map((line) => `      ${line}`));
  if (server.tools.length > 0) lines.push(`    tools  ${server.tools.map((tool) => tool.name).join(', ')}`);
  else if (server.status === 'connected') lines.push('    (no tools)');
  return lines.join('\n');
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

/** What `/session` says of the cost when the session's log could not be read. */
function unreadableCost(error: unknown): string {
  return `unknown: the session's log could not be read (${errorMessage(error)})`;
}
