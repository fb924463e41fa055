import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';
import { UsageError } from '../errors.js';

describe('parseArgs', () => {
  it('gives defaults when no flag is given', () => {
    expect(parseArgs([])).toEqual({
      continue: false,
      pick: false,
      fork: false,
      list: false,
      all: false,
      yolo: false,
      allowNetwork: false,
      trust: false,
      noSession: false,
      help: false,
      version: false,
      extensions: [],
      outputFormat: 'text',
      inputFormat: 'text',
      acp: false,
    });
  });

  it('reads every flag, long and short', () => {
    expect(
      parseArgs([
        '--print',
        'hi',
        '--no-session',
        '--provider',
        'openai',
        '--model',
        'gpt-x',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--system',
        '@prompt.md',
        '--session-dir',
        'here',
        '--extension',
        'a.ts',
        '--extension',
        'tools/',
        '--sandbox',
        'read-only',
        '--allow-network',
        '--trust',
      ]),
    ).toEqual({
      print: 'hi',
      continue: false,
      pick: false,
      fork: false,
      list: false,
      all: false,
      yolo: false,
      sandbox: 'read-only',
      allowNetwork: true,
      trust: true,
      noSession: true,
      provider: 'openai',
      model: 'gpt-x',
      baseURL: 'http://127.0.0.1:9/v1',
      system: '@prompt.md',
      sessionDir: 'here',
      help: false,
      version: false,
      extensions: ['a.ts', 'tools/'],
      outputFormat: 'text',
      inputFormat: 'text',
      acp: false,
    });
    expect(parseArgs(['-p', 'hi', '-c'])).toMatchObject({ print: 'hi', continue: true });
    expect(parseArgs(['--sandbox', 'off'])).toMatchObject({ sandbox: 'off', allowNetwork: false });
    expect(parseArgs(['--sandbox', 'workspace-write', '--allow-network'])).toMatchObject({ sandbox: 'workspace-write', allowNetwork: true });
    expect(parseArgs(['-r', '0197ab'])).toMatchObject({ resume: '0197ab' });
    expect(parseArgs(['--resume', './x.jsonl'])).toMatchObject({ resume: './x.jsonl' });
    expect(parseArgs(['--continue'])).toMatchObject({ continue: true });
    expect(parseArgs(['--list'])).toMatchObject({ list: true });
    expect(parseArgs(['--help'])).toMatchObject({ help: true });
    expect(parseArgs(['-h'])).toMatchObject({ help: true });
    expect(parseArgs(['--version'])).toMatchObject({ version: true });
    expect(parseArgs(['-v'])).toMatchObject({ version: true });
  });

  it('reads --region as an AWS region name, and refuses anything else', () => {
    expect(parseArgs(['--provider', 'bedrock', '--region', 'eu-central-2'])).toMatchObject({ provider: 'bedrock', region: 'eu-central-2' });
    expect(parseArgs(['--region', 'us-gov-west-1']).region).toBe('us-gov-west-1');
    expect(() => parseArgs(['--region', 'Frankfurt'])).toThrow('--region: not an AWS region (like us-east-1 or eu-west-3): "Frankfurt"');
    expect(() => parseArgs(['--region', 'eu-west-1; rm -rf /'])).toThrow(UsageError);
  });

  it('reads -r with no value as "pick a session", last or before another flag', () => {
    expect(parseArgs(['-r'])).toMatchObject({ pick: true });
    expect(parseArgs(['--resume', '--fork'])).toMatchObject({ pick: true, fork: true });
    expect(parseArgs(['-r', 'abc'])).toMatchObject({ pick: false, resume: 'abc' });
    expect(parseArgs(['--list', '--all', '--yolo'])).toMatchObject({ list: true, all: true, yolo: true });
  });

  it.each([
    [['-r', '-p', 'x'], '--print cannot use'],
    [['--fork'], '--fork needs --continue or --resume'],
    [['--all'], '--all goes with --list'],
    [['-c', '-r'], '--continue and --resume cannot be used together'],
    [['--sandbox', 'danger-full-access'], '--sandbox: expected read-only, workspace-write, off, got "danger-full-access"'],
    [['--sandbox'], "option '--sandbox <value>' argument missing"],
    [['--sandbox', 'off', '--allow-network'], '--allow-network lifts a limit of the sandbox, and --sandbox off has none'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('reads --output-format with -p, and --rewind with -c/-r', () => {
    expect(parseArgs(['-p', 'x', '--output-format', 'json'])).toMatchObject({ print: 'x', outputFormat: 'json' });
    expect(parseArgs(['-p', 'x', '--output-format', 'stream-json'])).toMatchObject({ outputFormat: 'stream-json' });
    expect(parseArgs(['-r', 'abc', '--rewind', '0198f'])).toMatchObject({ resume: 'abc', rewind: '0198f' });
    expect(parseArgs(['-c', '--rewind', '0198f', '-p', 'again'])).toMatchObject({ continue: true, rewind: '0198f', print: 'again' });
  });

  it("reads --list with -c or -r as a listing of that session's prompts", () => {
    expect(parseArgs(['-c', '--list'])).toMatchObject({ continue: true, list: true });
    expect(parseArgs(['-r', '4a0c9e31', '--list'])).toMatchObject({ resume: '4a0c9e31', list: true });
  });

  it('takes "-" as the prompt of --print (read from stdin)', () => {
    expect(parseArgs(['-p', '-'])).toMatchObject({ print: '-' });
  });

  it('reads the prompt from stdin for a --print without a value, last or before another flag, as claude -p does', () => {
    expect(parseArgs(['-p'])).toMatchObject({ print: '-' });
    expect(parseArgs(['--print', '--model', 'm'])).toMatchObject({ print: '-', model: 'm' });
    expect(parseArgs(['-p', '--yolo'])).toMatchObject({ print: '-', yolo: true });
    expect(parseArgs(['-p', '-c'])).toMatchObject({ print: '-', continue: true });
  });

  it('takes a prompt that starts with a dash when written --print=-…', () => {
    expect(parseArgs(['--print=-1 is negative?'])).toMatchObject({ print: '-1 is negative?' });
  });

  it.each(['anthropic', 'openai', 'offline'])('accepts --provider %s', (name) => {
    expect(parseArgs(['--provider', name]).provider).toBe(name);
  });

  it.each([
    [['--frobnicate'], /unknown option '--frobnicate'/],
    [['-x'], /unknown option '-x'/],
    [['hello'], /unexpected argument "hello": to send it as a prompt, run panto -p hello \(/],
    [['--model', 'm', 'fix the tests'], /unexpected argument "fix the tests": .*panto -p 'fix the tests'/],
    [['-p', '--list'], /--list cannot be used with --print/],
    [['-p', '-1 is negative?'], /ambiguous.*--print=-XYZ/],
    [['--list=yes'], /does not take an argument/],
    [['--provider', 'gemini'], /unknown provider "gemini"/],
    [['--provider'], /argument missing/],
    [['--model', ''], /--model needs a non-empty value/],
    [['--base-url', 'not a url'], /--base-url: not a URL/],
    [['--base-url', 'ftp://example.com'], /expected an http\(s\) URL/],
    [['-r', ''], /--resume needs a non-empty value/],
    [['-c', '-r', 'abc'], /--continue and --resume cannot be used together/],
    [['-c', '--list', '--all'], /--list cannot be used with --all \(which lists every folder's sessions/],
    [['-r', 'abc', '--list', '--rewind', '9e31'], /--list cannot be used with --rewind/],
    [['-c', '--list', '--fork'], /--list cannot be used with --fork/],
    [['--list', '-p', 'x'], /--list cannot be used with --print/],
    [['--system', '  '], /--system needs a non-empty value/],
    [['--extension', ''], /--extension needs a non-empty value/],
    [['--extension'], /argument missing/],
    [['-p', 'x', '--output-format', 'xml'], /--output-format: expected text, json, stream-json, got "xml"/],
    [['--output-format', 'json'], /--output-format goes with -p/],
    [['--rewind', 'abc'], /--rewind needs the session/],
    [['-c', '--fork', '--rewind', 'abc'], /--rewind cannot be used with --fork/],
  ])('rejects %j with a UsageError', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  describe('panto acp', () => {
    it('reads acp as the first word, with the flags that configure the agent', () => {
      expect(parseArgs(['acp', '--model', 'm', '--yolo', '--trust', '--sandbox', 'off', '--extension', 'x.ts'])).toMatchObject({
        acp: true,
        model: 'm',
        yolo: true,
        trust: true,
        sandbox: 'off',
        extensions: ['x.ts'],
      });
    });

    it.each([
      [['acp', '-p', 'hi'], '-p'],
      [['acp', '-c'], '--continue'],
      [['acp', '-r', 'abc'], '--resume'],
      [['acp', '--list'], '--list'],
      [['acp', '--no-session'], '--no-session'],
      [['acp', '--output-format', 'json'], '--output-format/--input-format'],
    ])('refuses %j: the client chooses the sessions', (argv, flag) => {
      expect(() => parseArgs(argv)).toThrow(new UsageError(`panto acp does not take ${flag}: the ACP client opens, loads and prompts the sessions`));
    });

    it('takes acp only as the first word', () => {
      expect(() => parseArgs(['--yolo', 'acp'])).toThrow(UsageError);
    });
  });

  describe('--input-format', () => {
    it('stream-json goes with -p without a prompt and --output-format stream-json', () => {
      expect(parseArgs(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'])).toMatchObject({
        print: '-',
        inputFormat: 'stream-json',
        outputFormat: 'stream-json',
      });
    });

    it.each([
      [['--input-format', 'stream-json'], '--input-format goes with -p: panto -p --input-format stream-json --output-format stream-json'],
      [
        ['-p', 'hi', '--input-format', 'stream-json', '--output-format', 'stream-json'],
        '--input-format stream-json reads the prompts from stdin: give -p no prompt of its own',
      ],
      [['-p', '--input-format', 'stream-json'], '--input-format stream-json needs --output-format stream-json'],
      [['-p', '--input-format', 'yaml'], '--input-format: expected text, stream-json, got "yaml"'],
    ])('refuses %j', (argv, message) => {
      expect(() => parseArgs(argv)).toThrow(new UsageError(message));
    });
  });
});
