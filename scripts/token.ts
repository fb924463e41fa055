/**
 * `npm run -s token -- <owner> [expires-in]`: prints a bearer token for `owner` that the
 * local stack (`npm start`) accepts, signed with the secret in the local data folder.
 *
 * `npm run -s token -- --stage <stage> <username>`: prints an access token of a deployed
 * stage's Cognito user pool for that user (their password from PANTO_PASSWORD, stdin with
 * --password-stdin, or asked for; AWS credentials needed). See docs/deploy.md.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localSecretFile, localSettings, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { runStageTokenCommand, TOKEN_USAGE } from './deployed/commands.js';
import { processIO } from './deployed/process-io.js';
import { suppressNodeVersionWarning } from './local/dynamodb-local.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (args.some((arg) => arg === '--stage' || arg.startsWith('--stage=') || arg.startsWith('--user-pool-id'))) {
  suppressNodeVersionWarning();
  process.exitCode = await runStageTokenCommand(args, processIO(root));
} else {
  const [owner, expiresIn = '30d', ...rest] = args;
  if (owner === undefined || owner === '' || owner.startsWith('-') || rest.length > 0) {
    process.stderr.write(TOKEN_USAGE);
    process.exit(2);
  }
  const { dataDir } = localSettings(root);
  const secret = await readLocalSecret(localSecretFile(dataDir));
  process.stdout.write(`${await signLocalToken(secret, owner, expiresIn)}\n`);
}
