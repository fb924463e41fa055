/**
 * Where a deployed stage's user pool is: what `npm run user` and `npm run token -- --stage`
 * need. From flags, else the environment, else `.sst/outputs.json` (what `sst deploy` wrote
 * for the stage it deployed last; sst.config.ts puts the stage, region, user pool and client
 * in it).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StagePool {
  /** The stage the ids belong to, when known. */
  stage: string | undefined;
  region: string;
  userPoolId: string;
  clientId: string;
  /** Where the ids came from, to say so. */
  source: string;
}

export interface StagePoolOptions {
  stage?: string;
  userPoolId?: string;
  clientId?: string;
  region?: string;
}

/** Why a stage's pool could not be found; its message says what to do. */
export class StagePoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StagePoolError';
  }
}

/**
 * Finds the stage's user pool and client.
 *
 * @example
 * const pool = await stagePool(process.cwd(), { stage: 'prod' }, process.env);
 */
export async function stagePool(root: string, options: StagePoolOptions, env: NodeJS.ProcessEnv): Promise<StagePool> {
  const userPoolId = options.userPoolId ?? env.PANTO_USER_POOL_ID;
  const clientId = options.clientId ?? env.PANTO_USER_POOL_CLIENT_ID;
  if (userPoolId && clientId) {
    const region = options.region ?? env.AWS_REGION ?? regionOfPool(userPoolId);
    return { stage: options.stage, region, userPoolId, clientId, source: options.userPoolId ? 'the flags' : 'PANTO_USER_POOL_ID / PANTO_USER_POOL_CLIENT_ID' };
  }
  const file = join(root, '.sst', 'outputs.json');
  let outputs: Record<string, unknown>;
  try {
    outputs = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    throw new StagePoolError(
      `no .sst/outputs.json: deploy the stage first (npx sst deploy --stage ${options.stage ?? '<stage>'}), or pass --user-pool-id and --client-id`,
    );
  }
  const stage = typeof outputs.stage === 'string' ? outputs.stage : undefined;
  if (options.stage !== undefined && stage !== options.stage) {
    throw new StagePoolError(
      `.sst/outputs.json is for stage ${stage ?? '(unknown)'}, not ${options.stage}: run npx sst deploy --stage ${options.stage} (it rewrites the file), or pass --user-pool-id and --client-id`,
    );
  }
  if (typeof outputs.userPool !== 'string' || typeof outputs.userPoolClient !== 'string') {
    throw new StagePoolError(
      `stage ${stage ?? '(unknown)'} has no user pool in .sst/outputs.json: it trusts an identity provider of its own (PANTO_JWT_ISSUER); get tokens from that`,
    );
  }
  const region = options.region ?? (typeof outputs.region === 'string' ? outputs.region : undefined) ?? env.AWS_REGION ?? regionOfPool(outputs.userPool);
  return { stage, region, userPoolId: outputs.userPool, clientId: outputs.userPoolClient, source: '.sst/outputs.json' };
}

/** A pool id starts with its region: `us-east-1_AbCdEf123`. */
function regionOfPool(userPoolId: string): string {
  const region = /^([a-z]{2}(?:-[a-z]+)+-\d)_/.exec(userPoolId)?.[1];
  if (region === undefined) throw new StagePoolError(`cannot tell the region of user pool ${userPoolId}: pass --region`);
  return region;
}
