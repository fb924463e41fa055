/**
 * Writing a whole session log as a new session: the one path by which an import and a fork
 * make a session. Lines are streamed through core's `SessionDecoder`, packed into entry
 * items (each put only if absent), and the META item goes last — until then nothing can see
 * the session. A failure removes what was written.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ID_RULE,
  InvalidSessionIdError,
  type ActiveModel,
  type SessionEntry,
  type SessionHeader,
  encodeHeader,
  SessionDecoder,
  SessionLog,
  type LineRules,
} from '@panto/core/store-kit';
import { ItemPacker } from '../entries/item-packer.js';
import type { S3Location } from '../entries/offload.js';
import { expiryOf, metaItem, putNewMeta } from '../meta/meta-item.js';
import { firstTitle } from '../meta/title.js';
import { isValidSessionId } from '../table/validation.js';
import { EntryWriter } from './entry-writer.js';

export interface WriteSessionOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Takes lines too big for a DynamoDB item (required for those). */
  s3: S3Location | undefined;
  /** Names the input in a `SessionCorruptError`. */
  source: string;
  /** The session log: a header line, then entry lines. */
  stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;
  /** The new session's id, chosen once the header is read (e.g. the header's own), before any item is written. */
  sessionId: (header: SessionHeader) => string | Promise<string>;
  /** Expire the session this long after `now`; never when null. */
  ttlSeconds: number | null;
  now: Date;
  /** `incoming` for a log entering panto (an import), `stored` for one panto wrote (a fork): see core's `LineRules`. */
  rules: LineRules;
  /** The model the session uses while none of its active path's entries names one (a fork of the part before the first turn). */
  defaultModel?: ActiveModel | null;
  /** The session's title (a fork's); by default its first prompt's, as for any session (an import). */
  title?: string | null;
}

/**
 * Writes the log as a new session of `owner` and returns its id. Lines are kept byte for
 * byte; the header keeps its version, creation time and cwd, with the new id. A corrupt
 * line (for an import also one nested deeper than `MAX_ENTRY_DEPTH`, or with a time that is not ISO 8601) is a `SessionCorruptError` naming the source and line; a taken id a
 * `SessionExistsError`; either way what was written is removed again.
 */
export async function writeSession(options: WriteSessionOptions): Promise<string> {
  const { dynamo, tableName, owner } = options;
  const decoder = new SessionDecoder(options.source, { rules: options.rules });
  const id = new IdChoice(options.sessionId);
  /** Tags this write's offloaded objects (see putOffload): the lines may be another session's too. */
  const incarnation = randomUUID();
  const { s3, source } = options;
  const writer = new EntryWriter({ dynamo, tableName, s3, source, incarnation, sessionId: () => id.of(decoder.header) });
  try {
    const packer = new ItemPacker((item) => writer.write(item));
    // The log's framing is core's one decoder; this loop only packs what it commits.
    const committed: SessionEntry[] = [];
    let title: string | null = null;
    for await (const batch of decoder.decode(options.stream)) {
      const { lines, entries, firstLine } = batch;
      for (let i = 0; i < lines.length; i++) await packer.add(lines[i]!, firstLine + i, i === lines.length - 1);
      // Every batch ends an item, as an append's do: a reader that holds the first N entries
      // (a cache) reads on from the item E#N.
      await packer.flush();
      for (const entry of entries) committed.push(entry);
      title ??= firstTitle(entries);
    }
    // A batch still open at the end was cut short by a crash and never acknowledged: left out.
    const { header } = decoder.end();
    // What META says of the entries (head, next parent, model) is what a load of them says.
    const log = SessionLog.of(committed, options.source);
    const sessionId = await id.of(header);
    await packer.flush();
    await writer.drain();
    const { ttlSeconds, now } = options;
    const meta = metaItem({
      id: sessionId,
      owner,
      createdAt: header.timestamp,
      updatedAt: now.toISOString(),
      header: encodeHeader({ ...header, id: sessionId }),
      ttlSeconds,
      expiresAt: expiryOf(ttlSeconds, now),
      entryCount: log.count,
      head: log.leafId,
      nextParent: log.resumeParent,
      activeModel: log.activeModel ?? options.defaultModel ?? null,
      title: options.title === undefined ? title : options.title,
      incarnation,
    });
    await putNewMeta(dynamo, tableName, sessionId, meta);
    return sessionId;
  } catch (error) {
    await writer.removeWritten(id.chosen);
    throw error;
  }
}

/** The new session's id, decided once (concurrent puts wait for the same choice), and only once the header has been read. */
class IdChoice {
  readonly #choose: (header: SessionHeader) => string | Promise<string>;
  #choosing: Promise<string> | undefined;
  /** The id, once chosen. */
  chosen: string | undefined;

  constructor(choose: (header: SessionHeader) => string | Promise<string>) {
    this.#choose = choose;
  }

  of(header: SessionHeader | undefined): Promise<string> {
    this.#choosing ??= (async () => {
      if (header === undefined) throw new TypeError('the session id is needed before the header was read');
      const chosen = await this.#choose(header);
      if (!isValidSessionId(chosen)) throw new InvalidSessionIdError(chosen, `use ${ID_RULE}`);
      this.chosen = chosen;
      return chosen;
    })();
    return this.#choosing;
  }
}
