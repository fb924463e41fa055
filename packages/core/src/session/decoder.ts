/**
 * The one reader of the session log's framing, for every consumer: the filesystem store's
 * load, the session catalog and the import into DynamoDB. It decides what a line means —
 * line 1 is the header; a `batch_size` line opens a batch of that many lines; a torn last
 * line and a batch a crash cut short at the end were never acknowledged and are left out;
 * anything else unreadable is a `SessionCorruptError` naming the source and the 1-based line.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { SessionCorruptError } from '../errors.js';
import { decodeEntry, decodeHeader, decodeLine, type LineRules, parseLine } from './decode-line.js';
import type { SessionHeader } from './format.js';
import type { SessionEntry } from './records.js';

/** One appended batch, whole, as read. */
export interface DecodedBatch {
  entries: SessionEntry[];
  /** The batch's lines without their newlines, exactly as read. */
  lines: string[];
  /** The 1-based line number of its first line. */
  firstLine: number;
}

/** How the input ended, once {@link SessionDecoder.end} is called. */
export interface DecoderEnd {
  header: SessionHeader;
  /** Complete lines at the end that were never committed: the lines of a cut-short batch. */
  uncommittedLines: number;
  /** Whether an unterminated last line was left out as torn. */
  torn: boolean;
  /** Entries committed in all. */
  entryCount: number;
  /** Each committed entry's position in the log, by id, from a decoder that keeps them. */
  ids?: Map<string, number>;
}

/**
 * Decodes a session log line by line. Feed it every line in order with {@link push} (it
 * returns each batch as soon as its last line arrives), then call {@link end}.
 *
 * @example
 * const decoder = new SessionDecoder('s3://bucket/key');
 * for await (const batch of decoder.decode(stream)) await write(batch.lines);
 * const { header } = decoder.end();
 */
export class SessionDecoder {
  readonly source: string;
  readonly #rules: LineRules;
  #header: SessionHeader | undefined;
  #line = 0;
  #entryCount = 0;
  #torn = false;
  /** Every entry read, by id; its position in the log only when kept (see the constructor), else null. */
  readonly #ids = new Map<string, number | null>();
  readonly #keep: boolean;
  /** The batch being read: its entries so far, and how many lines it still needs. */
  #open: { entries: SessionEntry[]; firstLine: number; remaining: number } | undefined;
  /** The lines of the open batch, for {@link push}. */
  #openLines: string[] = [];

  /**
   * `rules`: `stored` (the default) for a log panto wrote, `incoming` for one entering panto
   * (an import): see {@link LineRules}. `keep`: hold every entry by id ({@link end} returns
   * them) — for a reader that holds the whole log anyway; a stream keeps only the ids.
   */
  constructor(source: string, options: { rules?: LineRules; keep?: boolean } = {}) {
    this.source = source;
    this.#rules = options.rules ?? 'stored';
    this.#keep = options.keep ?? false;
  }

  /** The header, once line 1 has been read. */
  get header(): SessionHeader | undefined {
    return this.#header;
  }

  /**
   * Entries read that belong to a batch not complete yet (the last ones {@link next}
   * returned): left out should the input end before the batch does. 0 between batches.
   */
  get pending(): number {
    return this.#open?.entries.length ?? 0;
  }

  /**
   * Reads the next line (without its newline). `terminated` is false only for a last line
   * the input ended without a newline after: it counts only if it is a whole, valid entry,
   * else it is a torn line and left out. Returns the batch this line completes, if any.
   */
  push(text: string, terminated = true): DecodedBatch | undefined {
    const lineNumber = this.#line + 1;
    const open = this.#open;
    const entry = this.next(text, terminated);
    if (entry === undefined) return undefined;
    if (open === undefined && this.#open === undefined) return { entries: [entry], lines: [text], firstLine: lineNumber };
    this.#openLines.push(text);
    if (this.#open !== undefined) return undefined;
    const lines = this.#openLines;
    this.#openLines = [];
    return { entries: open!.entries, lines, firstLine: open!.firstLine };
  }

  /**
   * {@link push} without gathering batches, for a reader that holds the whole log anyway:
   * reads the next line and returns its entry (undefined for the header or a torn last
   * line) as soon as it is read — a batch's entries before the batch is complete, which
   * {@link pending} counts.
   */
  next(text: string, terminated = true): SessionEntry | undefined {
    const source = this.source;
    const lineNumber = ++this.#line;
    if (lineNumber === 1) {
      if (!terminated) throw new SessionCorruptError(source, 1, 'session header is incomplete');
      this.#header = decodeHeader(parseLine(text, source, 1), source, this.#rules);
      return undefined;
    }
    if (!terminated && !isWholeEntry(text, source, lineNumber)) {
      this.#torn = true;
      return undefined;
    }
    const entry = decodeLine(text, source, lineNumber, this.#rules);
    const batchSize = (entry as { batch_size?: unknown }).batch_size;
    if (batchSize !== undefined) {
      if (this.#open !== undefined) throw new SessionCorruptError(source, lineNumber, 'a new batch starts inside an incomplete batch');
      if (typeof batchSize !== 'number' || !Number.isInteger(batchSize) || batchSize < 2) {
        throw new SessionCorruptError(source, lineNumber, 'batch_size must be an integer of at least 2');
      }
      this.#open = { entries: [], firstLine: lineNumber, remaining: batchSize };
    }
    if (this.#ids.has(entry.id)) throw new SessionCorruptError(source, lineNumber, `duplicate entry id ${entry.id}`);
    if (entry.parent_id !== null && !this.#ids.has(entry.parent_id)) {
      throw new SessionCorruptError(source, lineNumber, `parent_id ${entry.parent_id} is not an earlier entry`);
    }
    const open = this.#open;
    this.#ids.set(entry.id, this.#keep ? this.#entryCount + (open?.entries.length ?? 0) : null);
    if (open === undefined) {
      this.#entryCount++;
      return entry;
    }
    open.entries.push(entry);
    if (--open.remaining === 0) {
      this.#open = undefined;
      this.#entryCount += open.entries.length;
    }
    return entry;
  }

  /**
   * Ends the input. A batch still open was cut short by a crash: it is left out. With `keep`,
   * `ids` holds the committed entries' positions.
   */
  end(): DecoderEnd {
    const header = this.#header;
    if (header === undefined) throw new SessionCorruptError(this.source, 1, 'empty file: no session header');
    const uncommitted = this.#open?.entries ?? [];
    for (const entry of uncommitted) this.#ids.delete(entry.id);
    return {
      header,
      uncommittedLines: uncommitted.length,
      torn: this.#torn,
      entryCount: this.#entryCount,
      ...(this.#keep ? { ids: this.#ids as Map<string, number> } : {}),
    };
  }

  /**
   * Decodes a byte stream (a file, an S3 object) one line at a time, yielding each
   * committed batch; holds no more than the current line and an open batch. A line that
   * is not UTF-8 is a `SessionCorruptError` (an unterminated last one is torn). Call
   * {@link end} afterwards.
   */
  async *decode(stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<DecodedBatch> {
    for await (const line of sourceLines(stream)) {
      if (!isUtf8(line.bytes)) {
        if (!line.terminated) {
          this.#line++;
          this.#torn = true;
          continue;
        }
        throw new SessionCorruptError(this.source, line.number, 'not valid UTF-8');
      }
      const batch = this.push(line.bytes.toString('utf8'), line.terminated);
      if (batch !== undefined) yield batch;
    }
  }
}

function isWholeEntry(text: string, source: string, lineNumber: number): boolean {
  try {
    decodeEntry(JSON.parse(text), source, lineNumber);
    return true;
  } catch {
    // Not a whole entry: the caller treats the line as torn.
    return false;
  }
}

export interface DecodedSession {
  header: SessionHeader;
  /** Every committed entry, in file order. */
  entries: SessionEntry[];
  /** Each entry's position in `entries`, by id (the index a `SessionLog` keeps). */
  ids: Map<string, number>;
  /**
   * Bytes of the file that hold committed lines. Anything after (a torn line, or the
   * complete lines of a batch cut short by a crash) was never acknowledged to a writer.
   */
  committedBytes: number;
  /** Whether the committed part ends without a newline (the next append must add one). */
  needsNewline: boolean;
}

/**
 * Decodes a whole session log held in memory (a session file): {@link SessionDecoder} over
 * its lines, plus where the committed bytes end.
 */
export function decodeSession(bytes: Uint8Array, source: string): DecodedSession {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const completeEnd = buffer.lastIndexOf(0x0a) + 1;
  const encoding = encodingOf(buffer.subarray(0, completeEnd), source);
  const decoder = new SessionDecoder(source, { keep: true });
  const entries: SessionEntry[] = [];
  /** Where the committed lines end: after the last line read outside an open batch. */
  let committedEnd = 0;
  for (let start = 0; start < completeEnd; ) {
    const end = buffer.indexOf(0x0a, start);
    const entry = decoder.next(buffer.toString(encoding, start, end));
    if (entry !== undefined) entries.push(entry);
    start = end + 1;
    if (decoder.pending === 0) committedEnd = start;
  }
  let tail: string | undefined;
  if (completeEnd < buffer.length && isUtf8(buffer.subarray(completeEnd))) {
    tail = buffer.toString('utf8', completeEnd);
    const entry = decoder.next(tail, false);
    if (entry !== undefined) entries.push(entry);
  }
  const { header, uncommittedLines, torn, ids } = decoder.end();
  if (uncommittedLines > 0) {
    // A batch a crash cut short (the kept tail among its lines, if any): its entries and bytes are not committed.
    entries.length -= uncommittedLines;
    return { header, entries, ids: ids!, committedBytes: committedEnd, needsNewline: false };
  }
  const tailKept = tail !== undefined && !torn;
  return { header, entries, ids: ids!, committedBytes: completeEnd + (tailKept ? Buffer.byteLength(tail!) : 0), needsNewline: tailKept };
}

/**
 * How the complete lines read: ASCII — what most logs are — as Latin-1, the same characters
 * without a UTF-8 decode; anything else must be UTF-8 (see {@link assertUtf8Lines}). Each
 * line is read from the bytes on its own, as a string of its own: no copy of the whole log
 * as one string is made first (15 MB at 10,000 messages, fresh memory on every load).
 */
function encodingOf(bytes: Buffer, source: string): 'latin1' | 'utf8' {
  if (isAscii(bytes)) return 'latin1';
  assertUtf8Lines(bytes, source);
  return 'utf8';
}

/**
 * Refuses bytes that are not UTF-8 (`SessionCorruptError` naming the first bad line) rather
 * than let them become U+FFFD: a log is kept byte for byte, never silently changed.
 */
export function assertUtf8Lines(bytes: Uint8Array, source: string, firstLine = 1): void {
  if (isUtf8(bytes)) return;
  const strict = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let line = firstLine; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    try {
      strict.decode(bytes.subarray(start, end));
    } catch {
      throw new SessionCorruptError(source, line, 'not valid UTF-8');
    }
    start = end + 1;
  }
}

export interface SourceLine {
  /** 1-based. */
  number: number;
  /** The line's bytes, without the newline. */
  bytes: Buffer;
  /** False only for a last line the stream ended without a newline. */
  terminated: boolean;
}

/** The lines of a byte stream, each with its number, without holding more than the current line. */
export async function* sourceLines(stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<SourceLine> {
  let pending: Buffer[] = [];
  let number = 0;
  for await (const piece of stream) {
    let chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      pending.push(chunk.subarray(0, newline));
      yield { number: ++number, bytes: Buffer.concat(pending), terminated: true };
      pending = [];
      chunk = chunk.subarray(newline + 1);
      newline = chunk.indexOf(0x0a);
    }
    if (chunk.length > 0) pending.push(Buffer.from(chunk)); // copy: the source may reuse its buffer
  }
  if (pending.length > 0) yield { number: ++number, bytes: Buffer.concat(pending), terminated: false };
}
