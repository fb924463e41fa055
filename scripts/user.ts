/**
 * `npm run user -- add alice`: manages the users of a deployed stage's Cognito user pool
 * (see scripts/deployed/commands.ts and docs/deploy.md). Needs AWS credentials.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUserCommand } from './deployed/commands.js';
import { processIO } from './deployed/process-io.js';
import { suppressNodeVersionWarning } from './local/dynamodb-local.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
suppressNodeVersionWarning();
process.exitCode = await runUserCommand(process.argv.slice(2), processIO(root));
