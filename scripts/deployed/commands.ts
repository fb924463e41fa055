/**
 * `npm run user` and `npm run token -- --stage`: the commands an operator runs against a
 * deployed stage's user pool. The entry points (scripts/user.ts, scripts/token.ts) only
 * call these with the process's streams; tests call them with a mocked Cognito client.
 */
import { parseArgs } from 'node:util';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import type { CommandIO } from './process-io.js';
import { stagePool, StagePoolError, type StagePool } from './stage.js';
import { runUsageCommand, USAGE_COMMANDS_USAGE } from './usage-commands.js';
import { addUser, generatePassword, listUsers, removeUser, setPassword, SignInChallengeError, signIn } from './users.js';

export const USER_USAGE = `usage: npm run user -- <command> [options]
  add <username> [--email <address>] [--password-stdin]   add a user; prints its password once
  password <username> [--password-stdin]                  set a new password (generated unless given)
  remove <username>                                        delete a user
  list                                                     list the users, with the sub that owns their sessions
${USAGE_COMMANDS_USAGE}options: --stage <stage> (checked against .sst/outputs.json), --user-pool-id <id> --client-id <id>, --region <region>
`;

const POOL_OPTIONS = {
  stage: { type: 'string' },
  'user-pool-id': { type: 'string' },
  'client-id': { type: 'string' },
  region: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const;

/** `npm run user -- …`; resolves with the exit code. */
export async function runUserCommand(argv: readonly string[], io: CommandIO): Promise<number> {
  // The usage ledger's commands work on the table (the local stack's too), not on the user pool.
  const first = parseArgs({ args: [...argv], strict: false, allowPositionals: true, options: { stage: { type: 'string' }, region: { type: 'string' } } })
    .positionals[0];
  if (first === 'limits' || first === 'usage') return runUsageCommand(argv, io);
  let parsed: ReturnType<typeof parseUserArgs>;
  try {
    parsed = parseUserArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${USER_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, username, ...rest] = positionals;
  const needsUser = command === 'add' || command === 'password' || command === 'remove';
  if (values.help || command === undefined || rest.length > 0 || (needsUser ? username === undefined : command !== 'list' || username !== undefined)) {
    io.stderr(USER_USAGE);
    return values.help ? 0 : 2;
  }
  return withPool(values, io, async (pool, client) => {
    const where = `stage ${pool.stage ?? '(unknown)'} (user pool ${pool.userPoolId}, from ${pool.source})`;
    switch (command) {
      case 'add': {
        const password = values['password-stdin'] ? await io.readPassword('', true) : generatePassword();
        const user = await addUser(client, pool, { username: username!, password, ...(values.email === undefined ? {} : { email: values.email }) });
        io.stdout(`added ${user.username} to ${where}\n`);
        io.stdout(`  owner (sub)  ${user.sub ?? '?'}\n`);
        if (!values['password-stdin']) io.stdout(`  password     ${password}   (shown once; npm run user -- password ${user.username} sets another)\n`);
        io.stdout(`  token        npm run -s token -- --stage ${pool.stage ?? '<stage>'} ${user.username}\n`);
        return 0;
      }
      case 'password': {
        const password = values['password-stdin'] ? await io.readPassword('', true) : generatePassword();
        await setPassword(client, pool, username!, password);
        io.stdout(values['password-stdin'] ? `set the password of ${username} in ${where}\n` : `new password of ${username}: ${password}\n`);
        return 0;
      }
      case 'remove':
        await removeUser(client, pool, username!);
        io.stdout(`removed ${username} from ${where} (their sessions stay until deleted or expired)\n`);
        return 0;
      default: {
        const users = await listUsers(client, pool);
        io.stdout(`${users.length} user${users.length === 1 ? '' : 's'} in ${where}\n`);
        for (const user of users) {
          io.stdout(`${user.username.padEnd(24)} ${(user.status ?? '?').padEnd(22)} ${user.sub ?? '?'}${user.enabled === false ? '  (disabled)' : ''}\n`);
        }
        return 0;
      }
    }
  });
}

export const TOKEN_USAGE = `usage: npm run -s token -- <owner> [expires-in]                     a token for the local stack (npm start), e.g. 1h, 30d
       npm run -s token -- --stage <stage> <username> [--password-stdin]
                                                                  an access token from a deployed stage's user pool
                                                                  (password: PANTO_PASSWORD, stdin, or asked for)
options with --stage: --user-pool-id <id> --client-id <id>, --region <region>
`;

/** `npm run token -- --stage <stage> <username>` (the local form is scripts/token.ts's own); resolves with the exit code. */
export async function runStageTokenCommand(argv: readonly string[], io: CommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseTokenArgs>;
  try {
    parsed = parseTokenArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${TOKEN_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [username, ...rest] = positionals;
  if (username === undefined || rest.length > 0) {
    io.stderr(TOKEN_USAGE);
    return 2;
  }
  return withPool(values, io, async (pool, client) => {
    const password = io.env.PANTO_PASSWORD || (await io.readPassword(`password of ${username}: `, values['password-stdin'] === true));
    try {
      const { accessToken } = await signIn(client, pool, username, password);
      io.stdout(`${accessToken}\n`);
      return 0;
    } catch (error) {
      if (error instanceof SignInChallengeError) {
        io.stderr(`${error.message}; set a permanent password with: npm run user -- password ${username}\n`);
        return 1;
      }
      if (error instanceof Error && error.name === 'NotAuthorizedException') {
        io.stderr(`Cognito refused: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
  });
}

async function withPool(
  values: { stage?: string | undefined; 'user-pool-id'?: string | undefined; 'client-id'?: string | undefined; region?: string | undefined },
  io: CommandIO,
  run: (pool: StagePool, client: CognitoIdentityProviderClient) => Promise<number>,
): Promise<number> {
  let pool: StagePool;
  try {
    pool = await stagePool(
      io.root,
      {
        ...(values.stage === undefined ? {} : { stage: values.stage }),
        ...(values['user-pool-id'] === undefined ? {} : { userPoolId: values['user-pool-id'] }),
        ...(values['client-id'] === undefined ? {} : { clientId: values['client-id'] }),
        ...(values.region === undefined ? {} : { region: values.region }),
      },
      io.env,
    );
  } catch (error) {
    if (!(error instanceof StagePoolError)) throw error;
    io.stderr(`${error.message}\n`);
    return 1;
  }
  const client = (io.cognito ?? ((region) => new CognitoIdentityProviderClient({ region })))(pool.region);
  return run(pool, client);
}

function parseUserArgs(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: { ...POOL_OPTIONS, email: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true });
}

function parseTokenArgs(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: POOL_OPTIONS, allowPositionals: true });
}
