/**
 * Creating the sessions table — keys, the two indexes, on-demand billing and TTL — and
 * migrating one an older version made (table-indexes.ts): the `byActivity` index added, its
 * sessions indexed (activity-backfill.ts), the `byOwner` index rebuilt to its projection.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { backfillActivityIndexOnce } from './activity-backfill.js';
import { ATTR } from './attributes.js';
import { sdkErrorName } from './sdk-errors.js';
import { ACTIVITY_ATTRIBUTES, BY_ACTIVITY_INDEX, BY_OWNER_INDEX, OWNER_ATTRIBUTES, upgradeIndexes } from './table-indexes.js';

export interface TableOptions {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * Creates the sessions table if it is absent — keys `pk`/`sk`, the `byOwner` GSI
 * (`gsi1pk`/`gsi1sk`, what a list shows) and the sparse `byActivity` GSI (`gsi2pk`/`gsi2sk`,
 * keys only), on-demand billing — waits until it is ACTIVE, and turns on TTL on `expires_at`
 * where the endpoint supports it. A table made before `byActivity` existed gets it added
 * (UpdateTable), and its sessions indexed (the one-time {@link backfillActivityIndexOnce}); one
 * whose `byOwner` projects every attribute gets it rebuilt. Idempotent; safe to race.
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
            ...OWNER_ATTRIBUTES,
            ...ACTIVITY_ATTRIBUTES,
          ],
          KeySchema: [
            { AttributeName: ATTR.pk, KeyType: 'HASH' },
            { AttributeName: ATTR.sk, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [BY_OWNER_INDEX, BY_ACTIVITY_INDEX],
        }),
      )
      .catch((error: unknown) => {
        // Someone else created it between our DescribeTable and CreateTable.
        if (sdkErrorName(error) !== 'ResourceInUseException') throw error;
      });
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: tableName });
  const { activityAdded } = await upgradeIndexes(client, tableName);
  if (activityAdded) await backfillActivityIndexOnce({ client, tableName });
  await enableTimeToLive(client, tableName);
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
