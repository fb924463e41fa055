/**
 * The service's S3 client, built at its first call rather than at a cold start: most requests
 * never reach S3 (it holds offloaded entries, large idempotent answers, exports and
 * archives), and the S3 client's code is the largest part of what a Lambda function would
 * otherwise evaluate before its first request. Its calls are the same calls, to the same
 * region, with the same configuration.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { AwsClients } from './aws-clients.js';
import type { AwsEndpoints } from './config.js';
import { httpPool, LAMBDA_MAX_SOCKETS } from './http-pool.js';

/** How each deferred client is built: by `builtS3Client`. */
const builders = new WeakMap<S3Client, () => Promise<S3Client>>();

/**
 * An `S3Client` whose SDK is loaded, and the client built (then `onBuilt` called with it),
 * at its first `send`. Until then it has nothing else to read: a caller that needs the
 * client's configuration or middleware (a presigner, tracing) awaits {@link builtS3Client}.
 *
 * @example
 * const s3 = deferredS3Client({ region: 'eu-west-1' });
 * await s3.send(new ListObjectsV2Command({ Bucket }));   // loads and builds it
 */
export function deferredS3Client(config: S3ClientConfig, onBuilt?: (client: S3Client) => void): S3Client {
  let built: S3Client | undefined;
  let building: Promise<S3Client> | undefined;
  const build = (): Promise<S3Client> => {
    building ??= import('@aws-sdk/client-s3').then((sdk) => {
      built = new sdk.S3Client(config);
      onBuilt?.(built);
      return built;
    });
    return building;
  };
  const send = async (...args: unknown[]): Promise<unknown> => {
    const client = await build();
    return (client.send as (...args: unknown[]) => Promise<unknown>)(...args);
  };
  const client = new Proxy({} as S3Client, {
    get(_target, key) {
      if (key === 'send') return send;
      if (built !== undefined) {
        const value: unknown = Reflect.get(built, key);
        return typeof value === 'function' ? value.bind(built) : value;
      }
      // Not a thenable (so that it can be returned from an async function), nothing else yet.
      if (key === 'then' || typeof key === 'symbol') return undefined;
      throw new Error(`the S3 client is built at its first call: await builtS3Client(client) before reading its ${key}`);
    },
  });
  builders.set(client, build);
  return client;
}

/** `client` itself once built: a deferred one built now (once), any other as it is. */
export async function builtS3Client(client: S3Client): Promise<S3Client> {
  const build = builders.get(client);
  return build === undefined ? client : build();
}

/**
 * The service's clients on AWS: DynamoDB built now (the first request reads the table), S3
 * deferred; `instrument` (tracing) is applied to each as it is built. Each pools
 * {@link LAMBDA_MAX_SOCKETS} connections (http-pool.ts says why).
 */
export function serviceAwsClients(endpoints: Pick<AwsEndpoints, 'region'>, instrument?: (client: DynamoDBClient | S3Client) => void): AwsClients {
  const config = { region: endpoints.region, ...httpPool(LAMBDA_MAX_SOCKETS) };
  const dynamo = new DynamoDBClient(config);
  instrument?.(dynamo);
  return { dynamo, s3: deferredS3Client(config, instrument) };
}
