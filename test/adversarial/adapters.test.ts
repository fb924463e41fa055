/**
 * The agent SDK adapters under attack: names built to collide when joined, offloaded texts
 * changed in S3, entry items deleted or forged in the table. Each adapter keeps to its own
 * keys, refuses what changed, and never returns a silently different transcript.
 */
import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { InvalidBatchError, SessionCorruptError } from '@panto/aws';
import { DynamoSessionStore } from '@panto/aws/claude-agent-sdk';
import { DynamoCheckpointSaver } from '@panto/aws/langgraph';
import { DynamoSession } from '@panto/aws/openai-agents';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { localAws, once } from '../setup/aws-fixtures.js';
import { objectKeys } from '../setup/aws-inspect.js';

const aws = once(() => localAws('adapters-attack'));

async function claude(): Promise<DynamoSessionStore> {
  const { dynamo, tableName, s3, bucket } = await aws();
  return new DynamoSessionStore({ client: dynamo, tableName, s3: { client: s3, bucket } });
}

const entry = (text: string) => ({ type: 'user', uuid: `u-${text}-${Math.random()}`, message: { content: text } });

describe('the adapters against hostile names and tampered storage', () => {
  it('keeps Claude transcripts whose names collide when joined with # or / apart, in the table and in S3', { timeout: 60_000 }, async () => {
    const store = await claude();
    const keys = [
      { projectKey: 'a#b', sessionId: 'c' },
      { projectKey: 'a', sessionId: 'b#c' },
      { projectKey: 'p/q', sessionId: 'r' },
      { projectKey: 'p', sessionId: 'q/r' },
      { projectKey: 'a', sessionId: 'b', subpath: 'c#H#' },
      { projectKey: 'a', sessionId: 'b', subpath: '../../main' },
    ];
    for (const [i, key] of keys.entries()) await store.append(key, [entry(`k${i}`)]);
    for (const [i, key] of keys.entries()) expect((await store.load(key))?.map((e) => (e.message as { content: string }).content)).toEqual([`k${i}`]);
    expect(await store.load({ projectKey: 'a', sessionId: 'b' })).toBeNull();
    expect((await store.listSessions('a')).map((s) => s.sessionId)).toEqual(['b#c']);
    expect((await store.listSubkeys({ projectKey: 'a', sessionId: 'b' })).sort((x, y) => x.localeCompare(y))).toEqual(['../../main', 'c#H#']);
    await store.delete({ projectKey: 'a', sessionId: 'b#c' });
    expect(await store.load({ projectKey: 'a#b', sessionId: 'c' })).not.toBeNull();
    await store.append({ projectKey: 'a', sessionId: 'b', subpath: '../../x' }, [{ ...entry('big'), blob: 'b'.repeat(400 * 1024) }]);
    const written = await objectKeys(await aws(), 'offload/claude/a/b/');
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('/sub/..%2F..%2Fx/');
    expect(written[0]).not.toContain('/../');
  });

  it('refuses an offloaded entry whose S3 object was changed with SessionCorruptError, in every adapter', async () => {
    const local = await aws();
    const swap = async (prefix: string) => {
      const [key] = await objectKeys(local, prefix);
      await local.s3.send(new PutObjectCommand({ Bucket: local.bucket, Key: key!, Body: 'x'.repeat(400 * 1024) }));
    };
    const store = await claude();
    const key = { projectKey: 'tamper', sessionId: 's' };
    await store.append(key, [{ ...entry('big'), blob: 'y'.repeat(400 * 1024) }]);
    await swap('offload/claude/tamper/s/');
    await expect(store.load(key)).rejects.toBeInstanceOf(SessionCorruptError);

    const session = new DynamoSession({
      client: local.dynamo,
      tableName: local.tableName,
      s3: { client: local.s3, bucket: local.bucket },
      sessionId: 'tamper',
    });
    await session.addItems([{ role: 'user', content: 'z'.repeat(400 * 1024) }]);
    await swap('offload/openai/tamper/');
    await expect(session.getItems()).rejects.toBeInstanceOf(SessionCorruptError);

    const saver = new DynamoCheckpointSaver({ client: local.dynamo, tableName: local.tableName, s3: { client: local.s3, bucket: local.bucket } });
    const checkpoint = { ...emptyCheckpoint(), channel_values: { big: 'w'.repeat(400 * 1024) }, channel_versions: { big: 1 } };
    const config = await saver.put({ configurable: { thread_id: 'tamper' } }, checkpoint, { source: 'input', step: -1, parents: {} }, { big: 1 });
    await swap('offload/langgraph/tamper/');
    await expect(saver.getTuple(config)).rejects.toBeInstanceOf(SessionCorruptError);
  });

  it('reports an entry item deleted from the middle of a transcript as SessionCorruptError, never a shorter transcript', async () => {
    const local = await aws();
    const store = await claude();
    const key = { projectKey: 'gap', sessionId: 's' };
    for (let batch = 0; batch < 3; batch++) await store.append(key, [entry(`b${batch}`)]);
    await local.dynamo.send(new DeleteItemCommand({ TableName: local.tableName, Key: { pk: { S: 'CLAUDE#gap#s' }, sk: { S: 'E##000000000001' } } }));
    await expect((await claude()).load(key)).rejects.toBeInstanceOf(SessionCorruptError);
  });

  it('does not read an entry item forged past the head, and does not write over it', async () => {
    const local = await aws();
    const store = await claude();
    const key = { projectKey: 'forged', sessionId: 's' };
    await store.append(key, [entry('real')]);
    const forged = {
      pk: { S: 'CLAUDE#forged#s' },
      sk: { S: 'E##000000000001' },
      lines: { S: `${JSON.stringify(entry('forged'))}\n` },
      count: { N: '1' },
      batch_end: { BOOL: true },
    };
    await local.dynamo.send(new PutItemCommand({ TableName: local.tableName, Item: forged }));
    expect((await store.load(key))?.map((e) => (e.message as { content: string }).content)).toEqual(['real']);
    await expect(store.append(key, [entry('next')])).rejects.toBeInstanceOf(InvalidBatchError);
    expect((await (await claude()).load(key))?.map((e) => (e.message as { content: string }).content)).toEqual(['real']);
  });

  it('keeps OpenAI sessions and LangGraph threads whose ids collide when joined apart', async () => {
    const local = await aws();
    const session = (sessionId: string) => new DynamoSession({ client: local.dynamo, tableName: local.tableName, sessionId });
    await session('x').addItems([{ role: 'user', content: 'plain' }]);
    await session('../x').addItems([{ role: 'user', content: 'dotted' }]);
    await session('x#H#').addItems([{ role: 'user', content: 'hashed' }]);
    expect(await session('x').getItems()).toEqual([{ role: 'user', content: 'plain' }]);
    expect(await session('../x').getItems()).toEqual([{ role: 'user', content: 'dotted' }]);
    const saver = new DynamoCheckpointSaver({ client: local.dynamo, tableName: local.tableName });
    const put = (thread_id: string, checkpoint_ns: string, value: string) =>
      saver.put(
        { configurable: { thread_id, checkpoint_ns } },
        { ...emptyCheckpoint(), channel_values: { v: value }, channel_versions: { v: 1 } },
        { source: 'input', step: -1, parents: {} },
        { v: 1 },
      );
    await put('a', 'b#C#', 'one');
    await put('a#C#b', '', 'two');
    expect((await saver.getTuple({ configurable: { thread_id: 'a', checkpoint_ns: 'b#C#' } }))?.checkpoint.channel_values).toEqual({ v: 'one' });
    expect((await saver.getTuple({ configurable: { thread_id: 'a#C#b', checkpoint_ns: '' } }))?.checkpoint.channel_values).toEqual({ v: 'two' });
    expect(await saver.getTuple({ configurable: { thread_id: 'a', checkpoint_ns: '' } })).toBeUndefined();
  });
});
