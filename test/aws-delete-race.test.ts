/**
 * DELETE racing turns and exports, through the HTTP app on DynamoDB Local and s3rver: a
 * deleted session leaves nothing behind — no item, no offloaded text, no export — however
 * its delete interleaves with the turn's appends and the export's upload.
 */
import { deleteSession, exportSession, SessionNotFoundError } from '@panto/aws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { snapshot, startApi, type ApiHarness } from './api-harness.js';
import { dynamoFailingOn } from './setup/aws-fixtures.js';

const SESSIONS = 30;
/** How long the model takes to answer: the window a DELETE lands in. */
const PROVIDER_DELAY_MS = 200;
/** Over ITEM_TEXT_LIMIT (350 KB): this reply is offloaded to S3 before its append. */
const BIG_REPLY = 'x'.repeat(400 * 1024);

/** DynamoDB Local answers in about a millisecond; DynamoDB in a region, in several. */
const DYNAMODB_LATENCY_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('delete-race');
  api.aws.dynamo.middlewareStack.add(
    (next) => async (args) => {
      await sleep(DYNAMODB_LATENCY_MS);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'latency' },
  );
});
afterAll(async () => {
  await api?.close();
});

/** Resolves once the model has been asked about `prompt` (so the prompt is stored). */
async function providerCalledWith(prompt: string): Promise<void> {
  while (!api.fake.requests.some((request) => request.rawBody.includes(JSON.stringify(prompt)))) await sleep(5);
}

describe('DELETE racing turns', () => {
  it(`leaves no item and no object of ${SESSIONS} sessions deleted while a turn (and an export) ran on each`, { timeout: 120_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const response = await api.call('racer', 'POST', '/sessions', { system: `session ${i}` });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    // An export made before the delete must go with the session too.
    for (const id of ids) expect((await api.call('racer', 'POST', `/sessions/${id}/export`)).status).toBe(200);
    for (let i = 0; i < SESSIONS; i++) {
      api.fake.enqueue({ text: i % 2 === 0 ? BIG_REPLY : 'a short answer', delayMs: PROVIDER_DELAY_MS });
    }

    // Each DELETE lands at another point of its turn: a third race the lease and the
    // prompt's append; the others wait until the model was called (the prompt is stored),
    // then land while it thinks, during the reply's offload and append, or after the answer.
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const prompt = `prompt ${i}`;
        const turn = api.call('racer', 'POST', `/sessions/${id}/messages`, { text: prompt });
        if (i % 3 === 0) {
          await sleep(i * 5);
        } else {
          await providerCalledWith(prompt);
          await sleep(((i % 10) / 10) * PROVIDER_DELAY_MS * 1.5);
        }
        const exported = i % 4 === 0 ? api.call('racer', 'POST', `/sessions/${id}/export`) : undefined;
        const deleted = await api.call('racer', 'DELETE', `/sessions/${id}`);
        return { turn: (await turn).status, deleted: deleted.status, exported: exported === undefined ? undefined : (await exported).status };
      }),
    );

    for (const outcome of outcomes) {
      expect(outcome.deleted).toBe(204);
      expect([200, 404]).toContain(outcome.turn);
      if (outcome.exported !== undefined) expect([200, 404]).toContain(outcome.exported);
    }
    const { items, objects } = await snapshot(api.aws);
    const left = {
      items: items.map((item) => `${item.pk?.S} ${item.sk?.S}`).filter((key) => ids.some((id) => key.includes(id))),
      objects: objects.filter((object) => ids.some((id) => object.includes(id))),
    };
    expect({ items: left.items.length, objects: left.objects.length, left }).toEqual({ items: 0, objects: 0, left: { items: [], objects: [] } });
    for (const id of ids) expect((await api.call('racer', 'GET', `/sessions/${id}`)).status).toBe(404);
    expect(api.logged).toEqual([]);
  });

  it('answers an export whose session is deleted between its META read and its entries with SessionNotFoundError, leaving no object', async () => {
    const response = await api.call('racer', 'POST', '/sessions', { system: 'deleted mid-export' });
    const { id } = (await response.json()) as { id: string };
    const location = { client: api.aws.s3, bucket: api.aws.bucket };
    // The export's first read of the entries waits until the whole delete has run.
    const exporter = localDynamoDBClient(inject('dynamoEndpoint'));
    let deleted = false;
    exporter.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand' && !deleted) {
          deleted = true;
          await deleteSession({ client: api.aws.dynamo, tableName: api.aws.tableName, owner: 'racer', sessionId: id, s3: location, exports: location });
        }
        return next(args);
      },
      { step: 'initialize', name: 'delete-before-query' },
    );
    const exported = exportSession({ dynamo: exporter, tableName: api.aws.tableName, s3: api.aws.s3, bucket: api.aws.bucket, owner: 'racer', sessionId: id });
    await expect(exported).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(deleted).toBe(true);
    expect((await snapshot(api.aws)).objects.filter((object) => object.includes(id))).toEqual([]);
  });

  it('answers a repeated DELETE of a session whose delete crashed after its tombstone with 204, then 404', async () => {
    const response = await api.call('racer', 'POST', '/sessions', { system: 'half deleted' });
    const { id } = (await response.json()) as { id: string };
    expect((await api.call('racer', 'POST', `/sessions/${id}/export`)).status).toBe(200);
    const location = { client: api.aws.s3, bucket: api.aws.bucket };
    const crashing = dynamoFailingOn('QueryCommand');
    await expect(
      deleteSession({ client: crashing, tableName: api.aws.tableName, owner: 'racer', sessionId: id, s3: location, exports: location }),
    ).rejects.toThrow('crashed before QueryCommand');
    expect((await api.call('racer', 'GET', `/sessions/${id}`)).status).toBe(404);

    expect((await api.call('racer', 'DELETE', `/sessions/${id}`)).status).toBe(204);
    const { items, objects } = await snapshot(api.aws);
    expect(items.filter((item) => item.pk?.S === `SESSION#${id}`)).toEqual([]);
    expect(objects.filter((object) => object.includes(id))).toEqual([]);
    expect((await api.call('racer', 'DELETE', `/sessions/${id}`)).status).toBe(404);
  });
});
