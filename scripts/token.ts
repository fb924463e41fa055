/**
 * `npm run -s token -- <owner>`: prints a bearer token for `owner` that the local stack
 * (`npm start`) accepts, signed with the secret in the local data folder.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localSecretFile, localSettings, readLocalSecret, signLocalToken } from '@panto/functions/local';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [owner, expiresIn = '30d', ...rest] = process.argv.slice(2);
if (owner === undefined || owner === '' || rest.length > 0) {
  process.stderr.write('usage: npm run -s token -- <owner> [expires-in, e.g. 1h or 30d]\n');
  process.exit(2);
}
const { dataDir } = localSettings(root);
const secret = await readLocalSecret(localSecretFile(dataDir));
process.stdout.write(`${await signLocalToken(secret, owner, expiresIn)}\n`);
