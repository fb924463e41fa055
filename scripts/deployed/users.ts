/**
 * The users of a deployed stage's Cognito user pool, and tokens for them — with the AWS
 * SDK's Cognito client and the operator's AWS credentials. The pool lets nobody sign up by
 * themselves (sst.config.ts); an operator adds users here.
 */
import { randomInt } from 'node:crypto';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  ListUsersCommand,
  type AttributeType,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { StagePool } from './stage.js';

export interface PoolUser {
  username: string;
  /** The token's `sub`: the owner of the user's sessions in panto. */
  sub: string | undefined;
  status: string | undefined;
  enabled: boolean | undefined;
  createdAt: Date | undefined;
}

/**
 * A password the pool's default policy accepts (8+ characters with upper and lower case,
 * a digit and a symbol): 20 characters, 4 of each kind, shuffled.
 */
export function generatePassword(): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '-_.!@#%+='];
  const characters = sets.flatMap((set) => Array.from({ length: 5 }, () => set[randomInt(set.length)]!));
  for (let i = characters.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [characters[i], characters[j]] = [characters[j]!, characters[i]!];
  }
  return characters.join('');
}

/**
 * Adds a user with a permanent password, and no invitation message (the operator hands the
 * password over): AdminCreateUser, then AdminSetUserPassword.
 *
 * @example
 * const user = await addUser(client, pool, { username: 'alice', password: generatePassword() });
 */
export async function addUser(
  client: CognitoIdentityProviderClient,
  pool: StagePool,
  user: { username: string; password: string; email?: string },
): Promise<PoolUser> {
  const created = await client.send(
    new AdminCreateUserCommand({
      UserPoolId: pool.userPoolId,
      Username: user.username,
      MessageAction: 'SUPPRESS',
      ...(user.email === undefined
        ? {}
        : {
            UserAttributes: [
              { Name: 'email', Value: user.email },
              { Name: 'email_verified', Value: 'true' },
            ],
          }),
    }),
  );
  await setPassword(client, pool, user.username, user.password);
  return {
    username: created.User?.Username ?? user.username,
    sub: attribute(created.User?.Attributes, 'sub'),
    // Confirmed now that the password is permanent.
    status: 'CONFIRMED',
    enabled: created.User?.Enabled,
    createdAt: created.User?.UserCreateDate,
  };
}

/** Sets a user's password, permanent (no change asked at first sign-in). */
export async function setPassword(client: CognitoIdentityProviderClient, pool: StagePool, username: string, password: string): Promise<void> {
  await client.send(new AdminSetUserPasswordCommand({ UserPoolId: pool.userPoolId, Username: username, Password: password, Permanent: true }));
}

export async function removeUser(client: CognitoIdentityProviderClient, pool: StagePool, username: string): Promise<void> {
  await client.send(new AdminDeleteUserCommand({ UserPoolId: pool.userPoolId, Username: username }));
}

/** Every user of the pool, page by page. */
export async function listUsers(client: CognitoIdentityProviderClient, pool: StagePool): Promise<PoolUser[]> {
  const users: PoolUser[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListUsersCommand({ UserPoolId: pool.userPoolId, ...(token === undefined ? {} : { PaginationToken: token }) }));
    for (const user of page.Users ?? []) {
      users.push({
        username: user.Username ?? '?',
        sub: attribute(user.Attributes, 'sub'),
        status: user.UserStatus,
        enabled: user.Enabled,
        createdAt: user.UserCreateDate,
      });
    }
    token = page.PaginationToken;
  } while (token !== undefined);
  return users;
}

/** Cognito wanted more than a password (a new password, MFA): its challenge, to say what to do. */
export class SignInChallengeError extends Error {
  readonly challenge: string;
  constructor(challenge: string) {
    super(`Cognito asks for ${challenge} before it gives a token`);
    this.name = 'SignInChallengeError';
    this.challenge = challenge;
  }
}

/**
 * Signs a user in with their password (ADMIN_USER_PASSWORD_AUTH, which needs the operator's
 * AWS credentials and which the app client allows), and returns the access token the API
 * takes, and how long it lives.
 *
 * @example
 * const { accessToken } = await signIn(client, pool, 'alice', password);
 */
export async function signIn(
  client: CognitoIdentityProviderClient,
  pool: StagePool,
  username: string,
  password: string,
): Promise<{ accessToken: string; expiresIn: number | undefined }> {
  const answer = await client.send(
    new AdminInitiateAuthCommand({
      UserPoolId: pool.userPoolId,
      ClientId: pool.clientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: username, PASSWORD: password },
    }),
  );
  const accessToken = answer.AuthenticationResult?.AccessToken;
  if (accessToken === undefined) throw new SignInChallengeError(answer.ChallengeName ?? 'something else');
  return { accessToken, expiresIn: answer.AuthenticationResult?.ExpiresIn };
}

function attribute(attributes: readonly AttributeType[] | undefined, name: string): string | undefined {
  return attributes?.find((each) => each.Name === name)?.Value;
}
