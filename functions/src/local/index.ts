/**
 * `@panto/functions/local`: what only the local stack (`npm start`, `npm run token`) and
 * the tests use — the emulator clients, HS256 tokens signed with a local secret, and the
 * local settings. The Lambda handlers never import it, so their bundles carry none of it.
 */
export { hs256Verifier, LOCAL_AUDIENCE, LOCAL_ISSUER, readLocalSecret, signLocalToken } from './local-tokens.js';
export { EMULATOR_CREDENTIALS, emulatorS3Config, localAwsClients } from './emulator-clients.js';
export { localOrigins, localSecretFile, localSettings, type LocalSettings } from './settings.js';
