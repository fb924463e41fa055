/**
 * Creating the sessions table — keys, the two indexes, on-demand billing and TTL — and
 * migrating one made before the `byActivity` index existed: the index added, its sessions
 * indexed (activity-backfill.ts).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { backfillActivityIndexOnce } from './activity-backfill.js';
import { ATTR } from './attributes.js';
import { GSI_BY_ACTIVITY, GSI_BY_OWNER } from './keys.js';
import { sdkErrorName } from './sdk-errors.js';

export interface TableOptions {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * Creates the sessions table if it is absent — keys `pk`/`sk`, the `byOwner` GSI
 * (`gsi1pk`/`gsi1sk`) and the sparse `byActivity` GSI (`gsi2pk`/`gsi2sk`, keys only),
 * on-demand billing — waits until it is ACTIVE, and turns on TTL on `expires_at` where the
 * endpoint supports it. A table made before `byActivity` existed gets it added (UpdateTable),
 * and its sessions indexed (the one-time {@link backfillActivityIndexOnce}). Idempotent; safe to race.
 *
 * @example
 * await createTable({ client: new DynamoDBClient({}), tableName: 'panto-sessions' });
 */
export async function createTable({ client, tableName }: TableOptions): Promise<void> {
  const exists = await client.send(new DescribeTableCommand({ TableName: tableName })).then(
    () => true,
    (error: unknown) => {
      if (sdkErrorName(error) === 'ResourceNotFoundException') return false;
      throw error;
    },
  );
  if (!exists) {
    await client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: ATTR.pk, AttributeType: 'S' },
            { AttributeName: ATTR.sk, AttributeType: 'S' },
            { AttributeName: ATTR.gsi1pk, AttributeType: 'S' },
            { AttributeName: ATTR.gsi1sk, AttributeType: 'S' },
            ...ACTIVITY_ATTRIBUTES,
          ],
          KeySchema: [
            { AttributeName: ATTR.pk, KeyType: 'HASH' },
            { AttributeName: ATTR.sk, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: GSI_BY_OWNER,
              KeySchema: [
                { AttributeName: ATTR.gsi1pk, KeyType: 'HASH' },
                { AttributeName: ATTR.gsi1sk, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
            BY_ACTIVITY_INDEX,
          ],
        }),
      )
      .catch((error: unknown) => {
        // Someone else created it between our DescribeTable and CreateTable.
        if (sdkErrorName(error) !== 'ResourceInUseException') throw error;
      });
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: tableName });
  if (await addActivityIndex(client, tableName)) await backfillActivityIndexOnce({ client, tableName });
  await enableTimeToLive(client, tableName);
}

const ACTIVITY_ATTRIBUTES = [
  { AttributeName: ATTR.gsi2pk, AttributeType: 'S' as const },
  { AttributeName: ATTR.gsi2sk, AttributeType: 'S' as const },
];

/**
 * The sparse index the archive sweeper queries: META items of sessions whose entries are in
 * the table, by shard and last activity. Keys only — the sweeper reads META itself,
 * consistently — so an append's index write is one small item.
 */
const BY_ACTIVITY_INDEX: GlobalSecondaryIndex = {
  IndexName: GSI_BY_ACTIVITY,
  KeySchema: [
    { AttributeName: ATTR.gsi2pk, KeyType: 'HASH' },
    { AttributeName: ATTR.gsi2sk, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' },
};

/**
 * Adds `byActivity` to a table made without it (the local stack keeps its table across runs)
 * and waits until the index is ACTIVE. Returns whether this call added it.
 */
async function addActivityIndex(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const indexStatus = async (): Promise<string | undefined> => {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === GSI_BY_ACTIVITY)?.IndexStatus ?? undefined;
  };
  let status = await indexStatus();
  let added = false;
  if (status === undefined) {
    added = await client
      .send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: ACTIVITY_ATTRIBUTES,
          GlobalSecondaryIndexUpdates: [{ Create: BY_ACTIVITY_INDEX }],
        }),
      )
      .then(
        () => true,
        (error: unknown) => {
          // Another process is adding it (or the table is being updated): wait for it below.
          if (
            sdkErrorName(error) === 'ResourceInUseException' ||
            (sdkErrorName(error) === 'ValidationException' && /already exists/i.test(String((error as Error).message)))
          )
            return false;
          throw error;
        },
      );
    status = await indexStatus();
  }
  for (let waited = 0; status !== 'ACTIVE'; waited += 1000) {
    if (waited > 300_000) throw new Error(`index ${GSI_BY_ACTIVITY} of ${tableName} did not become ACTIVE (${status ?? 'missing'})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    status = await indexStatus();
  }
  return added;
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') return;
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ATTR.expiresAt, Enabled: true },
      }),
    );
  } catch (error) {
    // Emulators without TTL answer with an unknown-operation error; the table works without it.
    const name = sdkErrorName(error);
    if (name === 'UnknownOperationException' || name === 'NotImplementedException') return;
    if (name === 'ValidationException' && /already enabled/i.test(String((error as Error).message))) return;
    throw error;
  }
}
