import { PROVIDER_CREDENTIAL_VARIABLES } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { commandEnvironment, PASS_ENV_VARIABLE } from './command-env.js';

describe('commandEnvironment', () => {
  const credentials = Object.values(PROVIDER_CREDENTIAL_VARIABLES).flat();

  it('withholds every provider credential and keeps every other variable', () => {
    const env = Object.fromEntries(credentials.map((name) => [name, `secret of ${name}`]));
    const kept = {
      PATH: '/usr/bin',
      HOME: '/home/ada',
      ANTHROPIC_BASE_URL: 'http://localhost:1',
      OPENAI_BASE_URL: 'http://localhost:2',
    };
    expect(credentials).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY']));
    expect(commandEnvironment({ ...env, ...kept })).toEqual(kept);
  });

  it('passes the withheld variables PANTO_BASH_PASS_ENV names, separated by commas or spaces', () => {
    const env = {
      ANTHROPIC_API_KEY: 'a',
      ANTHROPIC_AUTH_TOKEN: 'b',
      OPENAI_API_KEY: 'c',
      [PASS_ENV_VARIABLE]: ' OPENAI_API_KEY,ANTHROPIC_AUTH_TOKEN  NOT_SET ',
    };
    expect(commandEnvironment(env)).toEqual({
      ANTHROPIC_AUTH_TOKEN: 'b',
      OPENAI_API_KEY: 'c',
      [PASS_ENV_VARIABLE]: env[PASS_ENV_VARIABLE],
    });
  });

  it('leaves out variables that are undefined', () => {
    expect(commandEnvironment({ FOO: undefined, BAR: '' })).toEqual({ BAR: '' });
  });
});
