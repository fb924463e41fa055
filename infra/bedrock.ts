/**
 * Amazon Bedrock for the functions that run turns (api.ts, stream.ts): no key, the function
 * role's IAM policy decides. The role may call `bedrock:InvokeModel` and
 * `bedrock:InvokeModelWithResponseStream` on exactly the configured models and nothing else:
 * a model id in this region; an inference profile (`us.`, `eu.`, `apac.`, `global.`, …) as the
 * profile in this region plus the foundation model in each region it routes to — as Bedrock's
 * own GetInferenceProfile lists them at deploy time, so the list is AWS's, not a copy that goes
 * stale — and, for a `global.` profile, the region-less foundation-model ARN AWS asks for.
 *
 * The configured models (deploy-time settings; see sst.config.ts): `PANTO_MODEL` when
 * `PANTO_PROVIDER=bedrock`, else the catalog's Bedrock default (Bedrock is the default
 * provider when no key secret is set), and every `bedrock/<model>` of `PANTO_EXTRA_MODELS`.
 * With `PANTO_PROVIDER` naming another provider and no Bedrock extra model, the role gets no
 * Bedrock permission at all. The functions learn the list from `PANTO_BEDROCK_MODELS` and
 * offer exactly those models.
 */
import { DEFAULT_BEDROCK_MODEL, list } from '@panto/functions/deployment';

/** The actions a turn needs: the Converse API is authorised as InvokeModel(WithResponseStream). */
export const BEDROCK_ACTIONS = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];

/** Inference profiles are named by a geography before the model id. */
const PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

/** The Bedrock models the stack lets the functions call (see above); none when Bedrock is not wanted. */
export function bedrockModels(env: NodeJS.ProcessEnv = process.env): string[] {
  const extras = list(env.PANTO_EXTRA_MODELS)
    .filter((name) => name.startsWith('bedrock/'))
    .map((name) => name.slice('bedrock/'.length));
  const provider = env.PANTO_PROVIDER || undefined;
  const primary = provider === 'bedrock' ? [env.PANTO_MODEL || DEFAULT_BEDROCK_MODEL] : provider === undefined ? [DEFAULT_BEDROCK_MODEL] : [];
  return [...new Set([...primary, ...extras])];
}

/** The ARNs one model needs: its foundation model here, or its profile here and the models the profile routes to. */
function modelArns(model: string, where: { partition: $util.Input<string>; region: $util.Input<string>; account: $util.Input<string> }) {
  const profile = PROFILE_PREFIX.exec(model);
  if (profile === null) {
    return $resolve(where).apply(({ partition, region }) => [`arn:${partition}:bedrock:${region}::foundation-model/${model}`]);
  }
  const routes = aws.bedrock.getInferenceProfileOutput({ inferenceProfileId: model }).models;
  return $resolve({ ...where, routes }).apply(({ partition, region, account, routes: models }) => [
    `arn:${partition}:bedrock:${region}:${account}:inference-profile/${model}`,
    ...models.map((routed) => routed.modelArn),
    ...(profile[1] === 'global' ? [`arn:${partition}:bedrock:::foundation-model/${profile[2]}`] : []),
  ]);
}

/**
 * The IAM statement of the configured models, for a function's `permissions` (empty when
 * Bedrock is not wanted). Built once: both functions get the same statement.
 */
export const bedrockPermissions = ((models: string[]) => {
  if (models.length === 0) return [];
  const where = {
    partition: aws.getPartitionOutput().partition,
    region: aws.getRegionOutput().region,
    account: aws.getCallerIdentityOutput().accountId,
  };
  const resources = $resolve(models.map((model) => modelArns(model, where))).apply((arns) => [...new Set(arns.flat())]);
  return [{ actions: BEDROCK_ACTIONS, resources }];
})(bedrockModels());

/** What the functions read: the models the statement allows (functions/src/config.ts, `PANTO_BEDROCK_MODELS`). */
export const bedrockEnvironment: Record<string, string> = bedrockModels().length > 0 ? { PANTO_BEDROCK_MODELS: bedrockModels().join(',') } : {};
