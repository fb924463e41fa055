/**
 * `npm run user` and `npm run token -- --stage`: the exact Cognito requests they send, with
 * the AWS SDK's client mocked (there is no AWS here), how they find a stage's user pool in
 * `.sst/outputs.json`, and the token script as a process (local tokens unchanged).
 */
import 'aws-sdk-client-mock-vitest/extend';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  ListUsersCommand,
  NotAuthorizedException,
} from '@aws-sdk/client-cognito-identity-provider';
import { hs256Verifier, localSecretFile, readLocalSecret } from '@panto/functions/local';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runStageTokenCommand, runUserCommand } from '../scripts/deployed/commands.js';
import type { CommandIO } from '../scripts/deployed/process-io.js';
import { generatePassword } from '../scripts/deployed/users.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const POOL = 'eu-west-1_AbCdEf123';
const CLIENT = '4tq2ufo8m6cq6lm6ptam3vhlh5';
const OUTPUTS = { stage: 'prod', region: 'eu-west-1', api: 'https://x.execute-api.eu-west-1.amazonaws.com', userPool: POOL, userPoolClient: CLIENT };

let root: string;
const client = new CognitoIdentityProviderClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const cognito = mockClient(client);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'panto-users-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  cognito.reset();
  await mkdir(join(root, '.sst'), { recursive: true });
  await writeFile(join(root, '.sst', 'outputs.json'), JSON.stringify(OUTPUTS));
});

/** Runs a command against the mocked client; what it printed, and the region its client was made for. */
function harness(options: { env?: NodeJS.ProcessEnv; password?: string } = {}): {
  io: CommandIO;
  out: string[];
  err: string[];
  regions: string[];
  prompts: string[];
} {
  const out: string[] = [];
  const err: string[] = [];
  const regions: string[] = [];
  const prompts: string[] = [];
  const io: CommandIO = {
    root,
    env: options.env ?? {},
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readPassword: async (prompt) => {
      prompts.push(prompt);
      if (options.password === undefined) throw new Error('no password expected');
      return options.password;
    },
    cognito: (region) => {
      regions.push(region);
      return client;
    },
  };
  return { io, out, err, regions, prompts };
}

describe('npm run user', () => {
  it('adds a user with a generated permanent password and no invitation, and prints its sub once', async () => {
    cognito.on(AdminCreateUserCommand).resolves({
      User: { Username: 'alice', Enabled: true, UserStatus: 'FORCE_CHANGE_PASSWORD', Attributes: [{ Name: 'sub', Value: '7f3e-sub' }] },
    });
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    const h = harness();
    expect(await runUserCommand(['add', 'alice', '--stage', 'prod'], h.io)).toBe(0);
    expect(h.regions).toEqual(['eu-west-1']);
    expect(cognito).toHaveReceivedCommandExactlyOnceWith(AdminCreateUserCommand, { UserPoolId: POOL, Username: 'alice', MessageAction: 'SUPPRESS' });
    const printed = h.out.join('');
    const password = /password +(\S+)/.exec(printed)?.[1];
    expect(password).toMatch(/^.{20}$/);
    expect(cognito).toHaveReceivedCommandExactlyOnceWith(AdminSetUserPasswordCommand, {
      UserPoolId: POOL,
      Username: 'alice',
      Password: password,
      Permanent: true,
    });
    expect(cognito.commandCalls(AdminSetUserPasswordCommand)[0]?.args[0].input).toEqual({
      UserPoolId: POOL,
      Username: 'alice',
      Password: password,
      Permanent: true,
    });
    expect(printed).toContain(`added alice to stage prod (user pool ${POOL}, from .sst/outputs.json)`);
    expect(printed).toContain('owner (sub)  7f3e-sub');
    expect(printed).toContain('npm run -s token -- --stage prod alice');
  });

  it('adds a user with an email and a password from stdin, which it does not print', async () => {
    cognito.on(AdminCreateUserCommand).resolves({ User: { Username: 'bob', Attributes: [] } });
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    const h = harness({ password: 'Correct-Horse-9' });
    expect(await runUserCommand(['add', 'bob', '--email', 'bob@example.com', '--password-stdin'], h.io)).toBe(0);
    expect(cognito.commandCalls(AdminCreateUserCommand)[0]?.args[0].input).toEqual({
      UserPoolId: POOL,
      Username: 'bob',
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: 'bob@example.com' },
        { Name: 'email_verified', Value: 'true' },
      ],
    });
    expect(cognito.commandCalls(AdminSetUserPasswordCommand)[0]?.args[0].input).toEqual({
      UserPoolId: POOL,
      Username: 'bob',
      Password: 'Correct-Horse-9',
      Permanent: true,
    });
    expect(h.out.join('')).not.toContain('Correct-Horse-9');
  });

  it('lists every user, page by page, with the sub that owns their sessions', async () => {
    cognito
      .on(ListUsersCommand)
      .resolvesOnce({
        Users: [{ Username: 'alice', UserStatus: 'CONFIRMED', Enabled: true, Attributes: [{ Name: 'sub', Value: 'sub-a' }] }],
        PaginationToken: 'p2',
      })
      .resolvesOnce({ Users: [{ Username: 'bob', UserStatus: 'CONFIRMED', Enabled: false, Attributes: [{ Name: 'sub', Value: 'sub-b' }] }] });
    const h = harness();
    expect(await runUserCommand(['list'], h.io)).toBe(0);
    expect(cognito.commandCalls(ListUsersCommand).map((call) => call.args[0].input)).toEqual([
      { UserPoolId: POOL },
      { UserPoolId: POOL, PaginationToken: 'p2' },
    ]);
    const lines = h.out.join('').trimEnd().split('\n');
    expect(lines[0]).toContain('2 users in stage prod');
    expect(lines[1]).toMatch(/^alice +CONFIRMED +sub-a$/);
    expect(lines[2]).toMatch(/^bob +CONFIRMED +sub-b {2}\(disabled\)$/);
  });

  it('removes a user, and sets a new password', async () => {
    cognito.on(AdminDeleteUserCommand).resolves({});
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    expect(await runUserCommand(['remove', 'alice'], harness().io)).toBe(0);
    expect(cognito.commandCalls(AdminDeleteUserCommand)[0]?.args[0].input).toEqual({ UserPoolId: POOL, Username: 'alice' });
    const h = harness();
    expect(await runUserCommand(['password', 'alice'], h.io)).toBe(0);
    const password = cognito.commandCalls(AdminSetUserPasswordCommand)[0]?.args[0].input.Password;
    expect(h.out.join('')).toBe(`new password of alice: ${password}\n`);
  });

  it('refuses a stage other than the one .sst/outputs.json is for, a stage without a user pool, and a missing file, sending nothing', async () => {
    const wrong = harness();
    expect(await runUserCommand(['list', '--stage', 'dev'], wrong.io)).toBe(1);
    expect(wrong.err.join('')).toMatch(/^\.sst\/outputs\.json is for stage prod, not dev: run npx sst deploy --stage dev/);
    await writeFile(join(root, '.sst', 'outputs.json'), JSON.stringify({ stage: 'own', api: 'https://x' }));
    const own = harness();
    expect(await runUserCommand(['list'], own.io)).toBe(1);
    expect(own.err.join('')).toContain('trusts an identity provider of its own (PANTO_JWT_ISSUER)');
    await rm(join(root, '.sst', 'outputs.json'));
    const none = harness();
    expect(await runUserCommand(['list'], none.io)).toBe(1);
    expect(none.err.join('')).toContain('no .sst/outputs.json');
    expect(cognito.calls()).toHaveLength(0);
  });

  it('takes the pool from flags or the environment instead, with the region from the pool id', async () => {
    cognito.on(ListUsersCommand).resolves({ Users: [] });
    await rm(join(root, '.sst', 'outputs.json'));
    const flags = harness();
    expect(await runUserCommand(['list', '--user-pool-id', 'us-west-2_Zz9', '--client-id', 'c'], flags.io)).toBe(0);
    expect(flags.regions).toEqual(['us-west-2']);
    expect(cognito.commandCalls(ListUsersCommand)[0]?.args[0].input).toEqual({ UserPoolId: 'us-west-2_Zz9' });
    const env = harness({ env: { PANTO_USER_POOL_ID: 'ap-south-1_Q', PANTO_USER_POOL_CLIENT_ID: 'c' } });
    expect(await runUserCommand(['list'], env.io)).toBe(0);
    expect(env.regions).toEqual(['ap-south-1']);
  });

  it('prints its usage for a command it does not know, and exits 2', async () => {
    const h = harness();
    expect(await runUserCommand(['promote', 'alice'], h.io)).toBe(2);
    expect(await runUserCommand(['add'], h.io)).toBe(2);
    expect(h.err.join('')).toContain('usage: npm run user -- <command>');
    expect(cognito.calls()).toHaveLength(0);
  });
});

describe('npm run token -- --stage', () => {
  it('signs the user in with ADMIN_USER_PASSWORD_AUTH and prints only the access token', async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: 'eyJ.access.token', IdToken: 'eyJ.id', ExpiresIn: 3600 } });
    const h = harness({ env: { PANTO_PASSWORD: 'Correct-Horse-9' } });
    expect(await runStageTokenCommand(['--stage', 'prod', 'alice'], h.io)).toBe(0);
    expect(cognito.commandCalls(AdminInitiateAuthCommand)[0]?.args[0].input).toEqual({
      UserPoolId: POOL,
      ClientId: CLIENT,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'alice', PASSWORD: 'Correct-Horse-9' },
    });
    expect(h.out).toEqual(['eyJ.access.token\n']);
    expect(h.prompts).toEqual([]);
  });

  it('asks for the password when PANTO_PASSWORD is not set', async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: 't' } });
    const h = harness({ password: 'typed' });
    expect(await runStageTokenCommand(['--stage', 'prod', 'alice'], h.io)).toBe(0);
    expect(h.prompts).toEqual(['password of alice: ']);
    expect(cognito.commandCalls(AdminInitiateAuthCommand)[0]?.args[0].input.AuthParameters).toEqual({ USERNAME: 'alice', PASSWORD: 'typed' });
  });

  it('says what to do when Cognito asks for a new password, or refuses the password, and exits 1', async () => {
    cognito
      .on(AdminInitiateAuthCommand)
      .resolvesOnce({ ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: 's' })
      .rejectsOnce(new NotAuthorizedException({ message: 'Incorrect username or password.', $metadata: {} }));
    const challenged = harness({ env: { PANTO_PASSWORD: 'x' } });
    expect(await runStageTokenCommand(['--stage', 'prod', 'alice'], challenged.io)).toBe(1);
    expect(challenged.err.join('')).toBe(
      'Cognito asks for NEW_PASSWORD_REQUIRED before it gives a token; set a permanent password with: npm run user -- password alice\n',
    );
    const refused = harness({ env: { PANTO_PASSWORD: 'x' } });
    expect(await runStageTokenCommand(['--stage', 'prod', 'alice'], refused.io)).toBe(1);
    expect(refused.err.join('')).toBe('Cognito refused: Incorrect username or password.\n');
    expect(challenged.out).toEqual([]);
  });
});

describe('generatePassword', () => {
  it('makes 20 characters with upper and lower case, digits and symbols, different each time', () => {
    const passwords = Array.from({ length: 20 }, generatePassword);
    for (const password of passwords) {
      expect(password).toHaveLength(20);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[0-9]/);
      expect(password).toMatch(/[^A-Za-z0-9]/);
    }
    expect(new Set(passwords).size).toBe(20);
  });
});

describe('scripts/token.ts as a process', () => {
  const run = promisify(execFile);
  const token = (args: string[], env: NodeJS.ProcessEnv) =>
    run(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', 'scripts/token.ts', ...args], {
      cwd: repo,
      env: { PATH: process.env.PATH, ...env },
    });

  it('still prints a local token for an owner when no --stage is given', { timeout: 30_000 }, async () => {
    const dataDir = join(root, 'local-data');
    const { stdout } = await token(['alice', '1h'], { PANTO_DATA_DIR: dataDir });
    const verify = hs256Verifier(await readLocalSecret(localSecretFile(dataDir)));
    expect(await verify({ authorization: `Bearer ${stdout.trim()}`, lambdaEvent: undefined })).toEqual({ owner: 'alice' });
  });

  it('with --stage, explains a stage it cannot find instead of calling AWS', { timeout: 30_000 }, async () => {
    // Whether or not a deploy left a .sst/outputs.json in the repository, it is not this stage's.
    const failure = await token(['--stage', 'no-such-stage', 'alice'], {}).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toMatch(/^(no \.sst\/outputs\.json|\.sst\/outputs\.json is for stage .*, not no-such-stage)/);
  });
});
