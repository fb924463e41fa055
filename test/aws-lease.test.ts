/**
 * The turn lease on DynamoDB Local: renewal keeps it past its term, a holder that stopped
 * renewing loses it and can no longer write (fencing), a stop request reaches the holder
 * through its renewal — all on a frozen clock, so nothing here passes by waiting.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  acquireSessionLease,
  DynamoStore,
  keepSessionLease,
  requestTurnStop,
  SessionBusyError,
  SessionLeaseLostError,
  SessionNotFoundError,
  StopRequestedError,
  TurnNotRunningError,
  deleteSession,
} from '@panto/aws';
import { ManualClock, RecordFactory, waitUntil } from '@panto/core/testing';
import { describe, expect, it } from 'vitest';
import { localAws, once } from './setup/aws-fixtures.js';

const aws = once(() => localAws('lease'));
const LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;
/** How long a wait may take on a machine shared by parallel test files: a deadline, never a pause. */
const WAIT_MS = 15_000;

async function newSession(owner = 'holder'): Promise<{ store: DynamoStore; sessionId: string }> {
  const { dynamo, tableName } = await aws();
  const store = await DynamoStore.create({ client: dynamo, tableName, owner });
  await store.appendMessages([new RecordFactory('before').user('an earlier prompt')]);
  return { store, sessionId: store.sessionId() };
}

describe('the turn lease on DynamoDB Local, on a frozen clock', () => {
  it('is kept past its term by the heartbeat, refusing a contender, and lapses within one term once renewals stop', { timeout: 90_000 }, async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const options = { client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() };
    const lease = await acquireSessionLease(options);
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    for (let renewal = 1; renewal <= 6; renewal++) {
      clock.advance(RENEW_EVERY_MS);
      await waitUntil(() => heartbeat.renewals === renewal, { message: `renewal ${renewal} went through`, timeoutMs: WAIT_MS });
    }
    // A minute in — twice the term it was taken for — the lease still holds.
    const busy = await acquireSessionLease(options).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect((busy as SessionBusyError).leaseExpiresAt).toBe(clock.now() + LEASE_MS);

    // The holder dies: no more renewals, no release. The lease lapses one term after the last renewal.
    await heartbeat.stop();
    clock.advance(LEASE_MS - 1);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionBusyError);
    clock.advance(1);
    const next = await acquireSessionLease(options);
    expect(next.leaseId).not.toBe(lease.leaseId);
    // The dead holder's lease cannot be renewed into the new one's place.
    await expect(lease.renew()).rejects.toBeInstanceOf(SessionLeaseLostError);
    await next.release();
  });

  it("fences a holder whose lease was taken: its appends are refused though the head did not move, and the new holder's are not", async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const base = { client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, clock: () => new Date(clock.now()) };
    const stale = await DynamoStore.lease(base);
    await stale.store.appendMessages([new RecordFactory('stale').user('written while the lease held')]);
    clock.advance(LEASE_MS); // the holder stalled past its term without renewing
    const fresh = await DynamoStore.lease(base);
    const f = new RecordFactory('late');
    await expect(stale.store.appendMessages([f.assistant('written after the lease was taken')])).rejects.toBeInstanceOf(SessionLeaseLostError);
    await fresh.store.appendMessages([new RecordFactory('fresh').user('the new turn')]);
    const read = await DynamoStore.open({ client: dynamo, tableName, owner: 'holder', sessionId });
    expect((await read.loadEntries()).map((entry) => (entry.type === 'message' ? entry.message.content : entry.type))).toEqual([
      'an earlier prompt',
      'written while the lease held',
      'the new turn',
    ]);
    await stale.lease.release(); // not ours any more: leaves the new holder's lease alone
    await expect(DynamoStore.lease(base)).rejects.toBeInstanceOf(SessionBusyError);
    await fresh.lease.release();
  });

  it('lets an expired lease that nobody took still write: the fencing token is the lease, not the clock', async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const { store, lease } = await DynamoStore.lease({
      client: dynamo,
      tableName,
      owner: 'holder',
      sessionId,
      leaseMs: LEASE_MS,
      clock: () => new Date(clock.now()),
    });
    clock.advance(2 * LEASE_MS);
    await store.appendMessages([new RecordFactory('slow').user('late but unopposed')]);
    await lease.release();
  });

  it('records when the lease began and where the log stood, shows it to readers while it holds, and clears it on release', async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const { lease } = await DynamoStore.lease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, clock: () => new Date(clock.now()) });
    const reader = await DynamoStore.open({ client: dynamo, tableName, owner: 'holder', sessionId, clock: () => new Date(clock.now()) });
    expect(reader.heldLease()).toEqual({
      leaseId: lease.leaseId,
      startedAt: Date.UTC(2026, 5, 1),
      expiresAt: Date.UTC(2026, 5, 1) + LEASE_MS,
      firstEntry: 1,
      stopRequested: false,
    });
    // Judged on the reader's clock: once expired, nobody holds it.
    const later = await DynamoStore.open({ client: dynamo, tableName, owner: 'holder', sessionId, clock: () => new Date(clock.now() + LEASE_MS) });
    expect(later.heldLease()).toBeNull();
    await lease.release();
    const { Item: meta } = await dynamo.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } }, ConsistentRead: true }),
    );
    expect(Object.keys(meta!).filter((name) => name.startsWith('lease_') || name === 'stop_requested')).toEqual([]);
  });
});

describe('stopping a running turn on DynamoDB Local', () => {
  it('reaches the holder through its next renewal, which aborts its signal; the holder keeps the lease until it releases', async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const lease = await acquireSessionLease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() });
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    const asked = await requestTurnStop({ client: dynamo, tableName, owner: 'holder', sessionId, now: () => clock.now() });
    expect(asked).toMatchObject({ leaseId: lease.leaseId, stopRequested: true });
    expect(heartbeat.signal.aborted).toBe(false); // nothing reaches the holder but its renewal
    clock.advance(RENEW_EVERY_MS);
    await waitUntil(() => heartbeat.signal.aborted, { message: 'the renewal read the stop request', timeoutMs: WAIT_MS });
    expect(heartbeat.signal.reason).toBeInstanceOf(StopRequestedError);
    await expect(
      acquireSessionLease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() }),
    ).rejects.toBeInstanceOf(SessionBusyError);
    await heartbeat.stop();
    await lease.release();
    // The flag went with the lease: the next turn is not stopped by it.
    const next = await acquireSessionLease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() });
    expect((await next.renew()).stopRequested).toBe(false);
    await next.release();
  });

  it('answers TurnNotRunningError when no turn runs or its lease expired, SessionNotFoundError for another owner, and changes nothing', async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const stop = (owner: string) => requestTurnStop({ client: dynamo, tableName, owner, sessionId, now: () => clock.now() });
    await expect(stop('holder')).rejects.toBeInstanceOf(TurnNotRunningError);
    const lease = await acquireSessionLease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() });
    await expect(stop('intruder')).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await lease.renew()).stopRequested).toBe(false);
    clock.advance(LEASE_MS);
    await expect(stop('holder')).rejects.toBeInstanceOf(TurnNotRunningError);
    expect((await lease.renew()).stopRequested).toBe(false);
    await lease.release();
  });

  it('loses the lease of a turn whose session is deleted under it', async () => {
    const { dynamo, tableName } = await aws();
    const { sessionId } = await newSession();
    const clock = new ManualClock();
    const lease = await acquireSessionLease({ client: dynamo, tableName, owner: 'holder', sessionId, leaseMs: LEASE_MS, now: () => clock.now() });
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    await deleteSession({ client: dynamo, tableName, owner: 'holder', sessionId });
    clock.advance(RENEW_EVERY_MS);
    await waitUntil(() => heartbeat.signal.aborted, { message: 'the renewal found the session gone', timeoutMs: WAIT_MS });
    expect(heartbeat.ended).toEqual({ type: 'lease-lost', error: expect.any(SessionNotFoundError) });
    await heartbeat.stop();
  });
});
