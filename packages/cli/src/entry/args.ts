import type { ProviderName } from '@panto/core';
import { parseArgs as parseNodeArgs } from 'node:util';
import { providerName } from '../agent/provider-choice.js';
import { UsageError } from '../errors.js';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/policy.js';

/** What the command line asks for. Flags that were not given are absent. */
export interface CliOptions {
  /** `-p, --print <prompt>`: one turn, print the answer, exit. `-` means "read it from stdin". */
  print?: string;
  /** `-c, --continue`: the most recent session of this folder. */
  continue: boolean;
  /** `-r, --resume <id | unique prefix | path to a .jsonl>`. */
  resume?: string;
  /** `-r` / `--resume` with no value: choose the session in a picker. */
  pick: boolean;
  /** `--fork` (with `-c`/`-r`): continue in a new session copied from the chosen one's current path. */
  fork: boolean;
  /** `--list`: this folder's sessions; with `-c`/`-r`, that session's prompts (their short ids, for `--rewind`). */
  list: boolean;
  /** `--all` (with `--list`): every folder's sessions. */
  all: boolean;
  /** `--yolo`: run bash, write and edit without asking (granting what commands ask beyond the sandbox; the sandbox stays). */
  yolo: boolean;
  /** `--sandbox read-only|workspace-write|off`; absent: `workspace-write` where the machine has a sandbox. */
  sandbox?: SandboxMode;
  /** `--allow-network`: sandboxed commands may use the network. */
  allowNetwork: boolean;
  /** `--trust`: run this folder's project code (extensions, MCP servers) this time, without asking. */
  trust: boolean;
  /** `--no-session`: persist nothing (a NullStore). */
  noSession: boolean;
  provider?: ProviderName;
  model?: string;
  baseURL?: string;
  /** `--region <name>`: the AWS region Bedrock is called in. */
  region?: string;
  /** `--system <text|@file>`, as given. */
  system?: string;
  /** `--session-dir <dir>`: where this folder's sessions live, instead of `$PANTO_HOME/sessions/…`. */
  sessionDir?: string;
  /** `--extension <path>` (repeatable): extension files or folders to load besides the usual places. */
  extensions: string[];
  /** `--output-format text|json|stream-json` (with `-p`): how the answer is written to stdout. */
  outputFormat: OutputFormat;
  /** `--input-format text|stream-json` (with `-p`): `stream-json` reads prompts from stdin, one JSON object per line. */
  inputFormat: InputFormat;
  /** `panto acp`: serve the Agent Client Protocol on stdin and stdout (an editor runs panto). */
  acp: boolean;
  /** `--rewind <prompt id>` (with `-c`/`-r`): restore the files to before that prompt and continue from before it. */
  rewind?: string;
  help: boolean;
  version: boolean;
}

/** How `-p` writes its answer: the text, one JSON object, or one JSON object per line for each event. */
export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** How `-p` reads its prompts: the one prompt, or one JSON object per line of stdin (prompts and interrupts). */
export const INPUT_FORMATS = ['text', 'stream-json'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export const USAGE =
  'usage: panto [acp | -p PROMPT | -c | -r [ID|FILE] | --list [--all]] [--output-format text|json|stream-json] [--input-format text|stream-json] [--rewind PROMPT_ID] [--fork] [--yolo] [--sandbox read-only|workspace-write|off] [--allow-network] ' +
  '[--trust] [--no-session] [--provider anthropic|openai|bedrock|offline] ' +
  '[--model NAME] [--base-url URL] [--region NAME] [--system TEXT|@FILE] [--session-dir DIR] [--extension PATH]… [--help] [--version]';

export const HELP = `panto — a local coding agent whose sessions persist themselves

${USAGE}

Without -p, panto is interactive: it reads prompts and /commands from the terminal, or one
per line from piped stdin (and exits at the end of the input).
panto acp serves the Agent Client Protocol on stdin and stdout: editors (Zed, JetBrains,
Neovim…) run it as an external agent. Its sessions are panto's sessions.

Options:
  -p, --print [prompt]     Run one turn, print the answer to stdout, exit. Without a
                           prompt (or with "-") it is read from stdin. Progress and tool
                           lines go to stderr.
  -c, --continue           Continue the most recent session of this folder.
  -r, --resume [session]   Resume a session: its short id (from --list), a unique prefix of
                           its id, or the path of a .jsonl file in the session format (e.g.
                           an export). Without a value: pick one from a list.
      --output-format <f>  With -p: text (the default), json (one object: the answer,
                           session_id, prompt_id, stop_reason, usage, cost) or stream-json
                           (one JSON object per line for each event, the result last).
      --input-format <f>   With -p and no prompt: stream-json reads prompts from stdin, one
                           JSON object per line ({"type":"user","message":{"role":"user",
                           "content":"…"}}, or an interrupt), answering each in the same
                           session (needs --output-format stream-json).
      --rewind <prompt id> With -c/-r: restore this folder's files to how they were before
                           that prompt (files changed outside panto since are kept and
                           named) and continue the session from before it. The prompt id
                           is its short id (panto -r <session> --list), or a unique prefix.
      --fork               With -c/-r: continue in a new session copied from that one.
      --list               List this folder's sessions (short id, last change, messages,
                           first prompt); with --all, every folder's. With -c or -r: list
                           that session's prompts (short id, time, first words).
      --yolo               Run without asking first what would ask (-p refuses it
                           without --yolo). It does not turn the sandbox off.
      --sandbox <mode>     Where bash commands run: workspace-write (the default where
                           the machine has bubblewrap: writes only in this folder and the
                           temp folder, .git and .panto read-only, secrets unreadable, no
                           network), read-only (no writes), or off (no sandbox; every
                           command asks first).
      --allow-network      Sandboxed commands may use the network.
      --trust              Run this folder's extensions (.panto/extensions/) and MCP
                           servers (.panto/mcp.json) this time without asking.
      --no-session         Do not save the session (with -c/-r: load it, write nothing back).
      --provider <name>    anthropic, openai, bedrock or offline. Default: $PANTO_PROVIDER, else
                           anthropic if ANTHROPIC_API_KEY is set, else openai if
                           OPENAI_API_KEY is set, else offline. bedrock (Amazon Bedrock)
                           needs no key: it signs with your AWS credentials (aws sso login,
                           AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
      --model <name>       The model. Default: $PANTO_MODEL, else the model the resumed
                           session last used with this provider, else the provider's default.
      --base-url <url>     The provider's API endpoint (also ANTHROPIC_BASE_URL / OPENAI_BASE_URL;
                           for bedrock, AWS_ENDPOINT_URL_BEDROCK_RUNTIME).
      --region <name>      The AWS region bedrock calls (default: AWS_REGION, else your
                           AWS profile's region).
      --system <text|@file>
                           The system prompt, or @path to read it from a file.
      --session-dir <dir>  Keep this folder's sessions in <dir>.
      --extension <path>   Load an extension (.ts, .js or .mjs file, or a folder with an
                           index); repeatable. Extensions also load from
                           $PANTO_HOME/extensions/ and .panto/extensions/.
  -h, --help               Show this help.
  -v, --version            Show the version.

Sessions live in $PANTO_HOME/sessions/<working folder>/ (PANTO_HOME defaults to ~/.panto);
/export writes to $PANTO_HOME/exports/. Resuming a file outside the session folders never
writes to it: the session itself is continued, or the file is imported as a session.
AGENTS.md files (the repository root down to this folder, and $PANTO_HOME/AGENTS.md) are
added to the system prompt.
MCP servers are read from $PANTO_HOME/mcp.json and .panto/mcp.json ({ "mcpServers": … }).

Commands (interactive): /compact [instructions], /export [path], /session,
  /model [provider/model], /extensions, /mcp, /trust [yes|no], /tree, /rewind, /fork, /help, /quit,
  and extensions' commands

Before a folder's own code runs (.panto/extensions/, .panto/mcp.json) panto asks once:
"Trust this folder? [y/N]" (remembered in $PANTO_HOME/trusted-folders.json; /trust changes
it). -p and piped input never ask: they skip it unless given --trust.
bash runs in the sandbox and asks only for what goes beyond it (network, writes outside);
write and edit ask outside the folder. Without a sandbox every bash, write and edit asks.
--yolo skips the questions, and -p (or piped input) refuses without it.

A line ending in \\ or Alt-Enter starts a new line of the prompt; Up/Down recall this
folder's earlier prompts.

Exit codes: 0 ok, 1 runtime failure, 2 usage error. PANTO_DEBUG=1 prints stack traces.`;

const OPTIONS = {
  print: { type: 'string', short: 'p' },
  continue: { type: 'boolean', short: 'c' },
  resume: { type: 'string', short: 'r' },
  list: { type: 'boolean' },
  all: { type: 'boolean' },
  fork: { type: 'boolean' },
  yolo: { type: 'boolean' },
  sandbox: { type: 'string' },
  'allow-network': { type: 'boolean' },
  trust: { type: 'boolean' },
  'no-session': { type: 'boolean' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  region: { type: 'string' },
  system: { type: 'string' },
  'session-dir': { type: 'string' },
  extension: { type: 'string', multiple: true },
  'output-format': { type: 'string' },
  'input-format': { type: 'string' },
  rewind: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/**
 * Parses the command line (without `node` and the script). Throws `UsageError` for an
 * unknown flag, a missing or bad value, a positional argument, or flags that conflict.
 *
 * @example
 * parseArgs(['-c', '--model', 'claude-sonnet-5-5']); // { continue: true, model: 'claude-sonnet-5-5', … }
 */
export function parseArgs(argv: readonly string[]): CliOptions {
  let values: ReturnType<typeof parse>['values'];
  // `-r` with no value (last, or before another flag) opens the picker; node's parseArgs
  // would call the next flag its value, or fail.
  const args = [...argv];
  // Likewise `-p` with no value reads the prompt from stdin (`git diff | panto -p`, as
  // `claude -p` does): it stands for `-p -`. A value that starts with a dash but is not a
  // flag (`-p "-1 is negative?"`) is left to node's parseArgs, which asks for `--print=-1…`.
  let pick = false;
  // `panto acp [flags]`: the one word panto takes before its flags.
  const acp = args[0] === 'acp';
  if (acp) args.shift();
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break;
    if ((args[i] === '-r' || args[i] === '--resume') && (i + 1 === args.length || args[i + 1]!.startsWith('-'))) {
      pick = true;
      args.splice(i--, 1);
    } else if ((args[i] === '-p' || args[i] === '--print') && (i + 1 === args.length || isFlag(args[i + 1]!))) {
      args.splice(i + 1, 0, '-');
    }
  }
  try {
    values = parse(args).values;
  } catch (error) {
    // `panto "fix the tests"`, as other coding agents take it: say how panto takes a prompt.
    if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const positional = /'(.*)'/s.exec((error as Error).message.split('\n')[0]!)?.[1] ?? '';
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positional)}: to send it as a prompt, run panto -p ${shellWord(positional)} (or panto, then type it)`,
        {
          cause: error,
        },
      );
    }
    throw new UsageError(nodeParseMessage(error), { cause: error });
  }

  const options: CliOptions = {
    continue: values.continue ?? false,
    pick,
    fork: values.fork ?? false,
    list: values.list ?? false,
    all: values.all ?? false,
    yolo: values.yolo ?? false,
    allowNetwork: values['allow-network'] ?? false,
    trust: values.trust ?? false,
    noSession: values['no-session'] ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
    extensions: (values.extension ?? []).map((path) => nonEmpty('--extension', path)),
    outputFormat: oneOf('--output-format', OUTPUT_FORMATS, values['output-format'], 'text'),
    inputFormat: oneOf('--input-format', INPUT_FORMATS, values['input-format'], 'text'),
    acp,
  };
  if (values.rewind !== undefined) options.rewind = nonEmpty('--rewind', values.rewind);
  if (values.print !== undefined) options.print = nonEmpty('--print', values.print);
  if (values.resume !== undefined) options.resume = nonEmpty('--resume', values.resume);
  if (values.provider !== undefined) options.provider = providerName(values.provider, '--provider');
  if (values.model !== undefined) options.model = nonEmpty('--model', values.model);
  if (values['base-url'] !== undefined) options.baseURL = baseURL(values['base-url']);
  if (values.region !== undefined) options.region = awsRegion(values.region);
  if (values.system !== undefined) options.system = nonEmpty('--system', values.system);
  if (values.sandbox !== undefined) options.sandbox = sandboxMode(values.sandbox);
  if (options.allowNetwork && options.sandbox === 'off') throw new UsageError('--allow-network lifts a limit of the sandbox, and --sandbox off has none');
  if (values['session-dir'] !== undefined) options.sessionDir = nonEmpty('--session-dir', values['session-dir']);

  if (options.acp) checkACP(options, values['output-format'] !== undefined || values['input-format'] !== undefined);
  else checkInputFormat(options);
  checkCombinations(options, values['output-format'] !== undefined);
  return options;
}

/** `--input-format stream-json` reads every prompt from stdin, and answers in stream-json. */
function checkInputFormat(options: CliOptions): void {
  if (options.inputFormat === 'text') return;
  if (options.print === undefined) throw new UsageError('--input-format goes with -p: panto -p --input-format stream-json --output-format stream-json');
  if (options.print !== '-') throw new UsageError('--input-format stream-json reads the prompts from stdin: give -p no prompt of its own');
  if (options.outputFormat !== 'stream-json') throw new UsageError('--input-format stream-json needs --output-format stream-json');
}

/** `panto acp` takes the flags that configure the agent; the client chooses sessions and asks the questions. */
function checkACP(options: CliOptions, formatGiven: boolean): void {
  const other =
    options.print !== undefined
      ? '-p'
      : options.continue
        ? '--continue'
        : options.resume !== undefined || options.pick
          ? '--resume'
          : options.list
            ? '--list'
            : options.fork
              ? '--fork'
              : options.rewind !== undefined
                ? '--rewind'
                : options.noSession
                  ? '--no-session'
                  : formatGiven
                    ? '--output-format/--input-format'
                    : undefined;
  if (other !== undefined) throw new UsageError(`panto acp does not take ${other}: the ACP client opens, loads and prompts the sessions`);
}

/** Throws `UsageError` for flags that do not go together. */
function checkCombinations(options: CliOptions, outputFormatGiven: boolean): void {
  if (options.pick && options.resume !== undefined) throw new UsageError('--resume given twice');
  if (options.continue && (options.resume !== undefined || options.pick)) {
    throw new UsageError('--continue and --resume cannot be used together');
  }
  if (options.pick && options.print !== undefined) {
    throw new UsageError('--resume without a session id opens a picker, which --print cannot use: give the id (panto --list shows them)');
  }
  if (options.fork && !options.continue && options.resume === undefined && !options.pick) {
    throw new UsageError('--fork needs --continue or --resume: it copies the session they open');
  }
  if (options.all && !options.list) throw new UsageError('--all goes with --list');
  if (outputFormatGiven && options.print === undefined) throw new UsageError('--output-format goes with -p (interactive mode writes for a person)');
  if (options.rewind !== undefined && !options.continue && options.resume === undefined && !options.pick) {
    throw new UsageError('--rewind needs the session: panto -r <session> --rewind <prompt id> (or -c)');
  }
  if (options.rewind !== undefined && (options.fork || options.noSession))
    throw new UsageError(`--rewind cannot be used with ${options.fork ? '--fork' : '--no-session'}`);
  if (options.list) {
    // With -c/-r, --list lists that session's prompts (what --rewind takes); alone, this folder's sessions.
    const session = options.continue || options.resume !== undefined || options.pick;
    const other =
      options.print !== undefined
        ? '--print'
        : options.rewind !== undefined
          ? '--rewind'
          : options.fork
            ? '--fork'
            : session && options.all
              ? "--all (which lists every folder's sessions, not one session's prompts)"
              : undefined;
    if (other) throw new UsageError(`--list cannot be used with ${other}`);
  }
}

function parse(argv: readonly string[]) {
  return parseNodeArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
}

function nonEmpty(flag: string, value: string): string {
  if (value.trim() === '') throw new UsageError(`${flag} needs a non-empty value`);
  return value;
}

function oneOf<T extends string>(flag: string, allowed: readonly T[], value: string | undefined, fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag}: expected ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
}

function sandboxMode(value: string): SandboxMode {
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UsageError(`--sandbox: expected ${SANDBOX_MODES.join(', ')}, got ${JSON.stringify(value)}`);
}

/** An AWS region name: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-4`. */
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

function awsRegion(value: string): string {
  if (!AWS_REGION.test(value)) throw new UsageError(`--region: not an AWS region (like us-east-1 or eu-west-3): ${JSON.stringify(value)}`);
  return value;
}

function baseURL(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url: not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url: expected an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

function shellWord(value: string): string {
  return /^[\w./:@=+-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Whether a word is one of panto's flags (`--model`, `-c`, `--model=x`), not a value that starts with a dash. */
function isFlag(word: string): boolean {
  const long = /^--([a-z-]+)(=.*)?$/s.exec(word);
  if (long) return Object.hasOwn(OPTIONS, long[1]!);
  const short = /^-([a-zA-Z])$/.exec(word);
  return short !== null && Object.values(OPTIONS).some((option) => 'short' in option && option.short === short[1]);
}

/** Node's parseArgs messages, first line only, in the CLI's voice. */
function nodeParseMessage(error: unknown): string {
  const lines = error instanceof Error ? error.message.split('\n') : [String(error)];
  // Node's "ambiguous" message ends with the way out ("use '--print=-XYZ'"); keep it.
  const message = lines.length > 1 && lines[0]!.includes('ambiguous') ? `${lines[0]} ${lines[lines.length - 1]}` : lines[0]!;
  return message.charAt(0).toLowerCase() + message.slice(1);
}
