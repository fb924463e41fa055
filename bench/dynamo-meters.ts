/**
 * What a DynamoDB client sends, counted by middleware on it: the write units DynamoDB reports
 * for every write, the bytes of every request as they go on the wire, and when each
 * `TransactWriteItems` starts and ends. Used by bench/turn-writes.ts.
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Write units, as DynamoDB reports them per table and index (`INDEXES`), summed over every write the client sends. */
export interface WriteMeter {
  units: number;
  /** By where they were spent: `table`, or an index's name. */
  by: Map<string, number>;
  reset(): void;
}

interface Consumed {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/**
 * Counts the write units of every write. `INDEXES`, not `TOTAL`: DynamoDB Local's `TOTAL`
 * for a transaction leaves out part of an item over 4 KB (a 4.6 KB entry put reports fewer
 * units than the table's own share in the `INDEXES` breakdown of the same request), so the
 * sum of the table's and each index's units is the figure DynamoDB would bill.
 */
export function writeMeter(client: DynamoDBClient): WriteMeter {
  const meter: WriteMeter = {
    units: 0,
    by: new Map(),
    reset() {
      meter.units = 0;
      meter.by.clear();
    },
  };
  const add = (where: string, units = 0): void => {
    meter.units += units;
    meter.by.set(where, (meter.by.get(where) ?? 0) + units);
  };
  const writes = new Set(['TransactWriteItemsCommand', 'UpdateItemCommand', 'PutItemCommand', 'DeleteItemCommand']);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const counted = writes.has(context.commandName ?? '');
      if (counted) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
      for (const each of Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]) {
        add('table', each.Table?.CapacityUnits);
        for (const [index, { CapacityUnits }] of Object.entries(each.GlobalSecondaryIndexes ?? {})) add(index, CapacityUnits);
      }
      return result;
    },
    { step: 'initialize', name: 'benchWriteUnits' },
  );
  return meter;
}

/** Bytes of every request the client sends, as they go on the wire: request line, signed headers and body. */
export interface ByteMeter {
  bytes: number;
  requests: number;
  reset(): void;
}

export function byteMeter(client: DynamoDBClient): ByteMeter {
  const meter: ByteMeter = {
    bytes: 0,
    requests: 0,
    reset() {
      meter.bytes = 0;
      meter.requests = 0;
    },
  };
  client.middlewareStack.add(
    (next) => async (args) => {
      // The deserialize step wraps the send itself: the request here is the signed one.
      const request = args.request as { method: string; path: string; headers: Record<string, string>; body?: unknown };
      let bytes = Buffer.byteLength(`${request.method} ${request.path} HTTP/1.1\r\n\r\n`);
      for (const [name, value] of Object.entries(request.headers)) bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
      const body = request.body;
      bytes += typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0;
      meter.bytes += bytes;
      meter.requests++;
      return next(args);
    },
    { step: 'deserialize', name: 'benchRequestBytes', priority: 'low' },
  );
  return meter;
}

/** `18 WCU (table 8, byOwner 6, byActivity 4)`. */
export function describeUnits(meter: WriteMeter): string {
  const parts = [...meter.by].map(([where, units]) => `${where} ${units}`).join(', ');
  return `${meter.units} WCU (${parts})`;
}

/** When each TransactWriteItems a turn sends starts and ends (the SDK call, as the bare one is timed). */
export function transactionTimer(client: DynamoDBClient): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const span = { start: performance.now(), end: 0 };
      spans.push(span);
      const result = await next(args);
      span.end = performance.now();
      return result;
    },
    { step: 'initialize', name: 'benchTransactionTimer' },
  );
  return spans;
}
