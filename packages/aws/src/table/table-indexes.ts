/**
 * The table's two indexes as this version defines them, and bringing a table an older version
 * made up to them: `byActivity` added where it is missing, and a `byOwner` that projects
 * everything (before {@link BY_OWNER_PROJECTION}) rebuilt — deleted, then created again, as
 * DynamoDB cannot change an index's projection in place. Each step waits for the index; one
 * process or several at once end with the same indexes.
 */
import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient, type GlobalSecondaryIndex, type AttributeDefinition } from '@aws-sdk/client-dynamodb';
import { ATTR } from './attributes.js';
import { BY_OWNER_PROJECTION, GSI_BY_ACTIVITY, GSI_BY_OWNER } from './keys.js';
import { sdkErrorName } from './sdk-errors.js';

/** Longest wait for one index to be created or deleted. */
const INDEX_WAIT_MS = 300_000;

export const OWNER_ATTRIBUTES: AttributeDefinition[] = [
  { AttributeName: ATTR.gsi1pk, AttributeType: 'S' },
  { AttributeName: ATTR.gsi1sk, AttributeType: 'S' },
];

export const ACTIVITY_ATTRIBUTES: AttributeDefinition[] = [
  { AttributeName: ATTR.gsi2pk, AttributeType: 'S' },
  { AttributeName: ATTR.gsi2sk, AttributeType: 'S' },
];

/** An owner's sessions by last update: what a list shows of each (no attribute a prompt's write or a lease changes). */
export const BY_OWNER_INDEX: GlobalSecondaryIndex = {
  IndexName: GSI_BY_OWNER,
  KeySchema: [
    { AttributeName: ATTR.gsi1pk, KeyType: 'HASH' },
    { AttributeName: ATTR.gsi1sk, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...BY_OWNER_PROJECTION] },
};

/**
 * The sparse index the archive sweeper queries: META items of sessions whose entries are in
 * the table, by shard and last activity. Keys only — the sweeper reads META itself,
 * consistently — so an append's index write is one small item.
 */
export const BY_ACTIVITY_INDEX: GlobalSecondaryIndex = {
  IndexName: GSI_BY_ACTIVITY,
  KeySchema: [
    { AttributeName: ATTR.gsi2pk, KeyType: 'HASH' },
    { AttributeName: ATTR.gsi2sk, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' },
};

interface IndexState {
  status: string | undefined;
  projection: string | undefined;
  attributes: ReadonlySet<string>;
}

async function indexState(client: DynamoDBClient, tableName: string, name: string): Promise<IndexState | undefined> {
  const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const index = table?.GlobalSecondaryIndexes?.find((each) => each.IndexName === name);
  if (index === undefined) return undefined;
  return { status: index.IndexStatus, projection: index.Projection?.ProjectionType, attributes: new Set(index.Projection?.NonKeyAttributes ?? []) };
}

/** Whether `state` is the index `wanted` defines (its projection; the keys never changed). */
function isCurrent(state: IndexState, wanted: GlobalSecondaryIndex): boolean {
  const projection = wanted.Projection!;
  const attributes = projection.NonKeyAttributes ?? [];
  return (
    state.projection === projection.ProjectionType && state.attributes.size === attributes.length && attributes.every((name) => state.attributes.has(name))
  );
}

/** One index change; a refusal because another process is making it (or the table is busy) is not an error: the caller waits. */
async function change(
  client: DynamoDBClient,
  tableName: string,
  update: NonNullable<UpdateTableCommand['input']['GlobalSecondaryIndexUpdates']>[number],
  attributes?: AttributeDefinition[],
): Promise<boolean> {
  return client
    .send(
      new UpdateTableCommand({
        TableName: tableName,
        GlobalSecondaryIndexUpdates: [update],
        ...(attributes === undefined ? {} : { AttributeDefinitions: attributes }),
      }),
    )
    .then(
      () => true,
      (error: unknown) => {
        const name = sdkErrorName(error);
        if (name === 'ResourceInUseException' || name === 'LimitExceededException') return false;
        if (name === 'ValidationException' && /already exists|does not exist|not found|being (created|deleted)/i.test(String((error as Error).message)))
          return false;
        throw error;
      },
    );
}

/** Waits until `until` holds of the index's state (undefined: the index is gone). */
async function waitForIndex(
  client: DynamoDBClient,
  tableName: string,
  name: string,
  until: (state: IndexState | undefined) => boolean,
  what: string,
): Promise<void> {
  for (let waited = 0; ; waited += 1000) {
    const state = await indexState(client, tableName, name);
    if (until(state)) return;
    if (waited > INDEX_WAIT_MS) throw new Error(`index ${name} of ${tableName} did not become ${what} (${state?.status ?? 'missing'})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Creates `index` unless it exists, and waits until it is ACTIVE. Returns whether this call created it. */
async function ensureIndex(client: DynamoDBClient, tableName: string, index: GlobalSecondaryIndex, attributes: AttributeDefinition[]): Promise<boolean> {
  const name = index.IndexName!;
  const created = (await indexState(client, tableName, name)) === undefined && (await change(client, tableName, { Create: index }, attributes));
  await waitForIndex(client, tableName, name, (state) => state?.status === 'ACTIVE', 'ACTIVE');
  return created;
}

/** Rebuilds `index` when it exists with another projection: deleted, gone, created again, ACTIVE. */
async function rebuildIndex(client: DynamoDBClient, tableName: string, index: GlobalSecondaryIndex, attributes: AttributeDefinition[]): Promise<void> {
  const name = index.IndexName!;
  const state = await indexState(client, tableName, name);
  if (state === undefined || isCurrent(state, index)) return;
  await waitForIndex(client, tableName, name, (now) => now === undefined || now.status === 'ACTIVE', 'ACTIVE or gone');
  // Looked at again: another process may have rebuilt it meanwhile, and its new one stays.
  const now = await indexState(client, tableName, name);
  if (now !== undefined && !isCurrent(now, index)) await change(client, tableName, { Delete: { IndexName: name } });
  await waitForIndex(client, tableName, name, (now) => now === undefined || isCurrent(now, index), 'gone');
  await ensureIndex(client, tableName, index, attributes);
}

/**
 * Brings an existing table's indexes up to this version's: `byActivity` added where missing
 * (returns whether it was — its sessions then need the backfill), and `byOwner` rebuilt when
 * it projects something else than {@link BY_OWNER_PROJECTION}. While `byOwner` is rebuilt a
 * session list fails; its META items are untouched.
 */
export async function upgradeIndexes(client: DynamoDBClient, tableName: string): Promise<{ activityAdded: boolean }> {
  const activityAdded = await ensureIndex(client, tableName, BY_ACTIVITY_INDEX, ACTIVITY_ATTRIBUTES);
  await rebuildIndex(client, tableName, BY_OWNER_INDEX, OWNER_ATTRIBUTES);
  return { activityAdded };
}
