// What every fake model server shares, whatever its wire and transport: the queue of
// scripted replies, the replies held or paused until the test lets them go, and the
// playing of a reply's frames with its interventions (drop, early end, error event, hang,
// pause) at a delta boundary.
import type { Frame } from './frames.js';
import type { FakeRawReply, FakeReply } from './types.js';

export type QueuedReply = { kind: 'scripted'; reply: FakeReply } | { kind: 'raw'; reply: FakeRawReply };

/** Where a reply's frames go: an HTTP/1.1 response or an HTTP/2 stream. */
export interface ReplySink {
  /** Whether the client went away (or the response was torn down). */
  readonly destroyed: boolean;
  /** Resolves when the response or stream closes, for whatever reason. */
  readonly closed: Promise<void>;
  write(data: string | Uint8Array): void;
  end(data?: string | Uint8Array): void;
  /** Resolves once what was written so far has been handed to the transport. */
  flush(): Promise<void>;
  /** Kills the connection under the response: a stream that drops mid-message. */
  drop(): void;
}

/** The replies queued for a fake server, and those held or paused right now. */
export class ReplyQueue {
  readonly #queue: QueuedReply[] = [];
  readonly #holds = new Set<() => void>();
  readonly #pauses = new Set<() => void>();

  get queued(): number {
    return this.#queue.length;
  }

  get paused(): number {
    return this.#pauses.size;
  }

  enqueue(...replies: FakeReply[]): void {
    for (const reply of replies) this.#queue.push({ kind: 'scripted', reply });
  }

  enqueueRaw(reply: FakeRawReply): void {
    this.#queue.push({ kind: 'raw', reply });
  }

  next(): QueuedReply | undefined {
    return this.#queue.shift();
  }

  /** Lets every paused reply send the rest of its stream. */
  resume(): void {
    for (const release of this.#pauses) release();
    this.#pauses.clear();
  }

  /** Lets every held and paused reply go (the server is closing). */
  releaseAll(): void {
    for (const release of this.#holds) release();
    this.#holds.clear();
    this.resume();
  }

  /** Waits until the client goes away, or the hold is released (`releaseAll`; `resume` for a pause). */
  async hold(sink: ReplySink, kind: 'hang' | 'pause'): Promise<void> {
    const holds = kind === 'hang' ? this.#holds : this.#pauses;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    holds.add(release);
    await Promise.race([sink.closed, released]);
    holds.delete(release);
  }

  /**
   * Writes `frames` to `sink` as `reply` asks: all of them, or up to the delta where it drops,
   * ends early, sends `errorFrame`, hangs or pauses. Interventions happen at a delta
   * boundary: before the next delta or before the tail.
   */
  async play(frames: readonly Frame[], reply: FakeReply, sink: ReplySink, errorFrame: () => string | Uint8Array): Promise<void> {
    const totalDeltas = frames.filter((frame) => frame.kind === 'delta').length;
    const at = (count: number | undefined): number => (count === undefined ? -1 : Math.min(count, totalDeltas));
    const hangAt = reply.hang ? Math.min(1, totalDeltas) : -1;
    const errorAt = reply.errorEvent ? at(reply.errorEvent.afterDeltas ?? 0) : -1;
    const dropAt = at(reply.dropAfterDeltas);
    const endAt = at(reply.endAfterDeltas);
    const pauseAt = at(reply.pauseAfterDeltas);
    let deltas = 0;
    let tailReached = false;
    for (const frame of frames) {
      if (frame.kind !== 'head' && !tailReached) {
        if (frame.kind === 'tail') tailReached = true;
        if (deltas === dropAt) {
          await sink.flush();
          sink.drop();
          return;
        }
        if (deltas === endAt) {
          sink.end();
          return;
        }
        if (deltas === errorAt) {
          sink.end(errorFrame());
          return;
        }
        if (deltas === hangAt) {
          await sink.flush();
          await this.hold(sink, 'hang');
          return;
        }
        if (deltas === pauseAt) {
          await sink.flush();
          await this.hold(sink, 'pause');
          if (sink.destroyed) return;
        }
      }
      if (sink.destroyed) return;
      sink.write(frame.data);
      if (frame.kind === 'delta') deltas++;
    }
    sink.end();
  }
}

/** Waits `reply.delayMs` (or until the client goes away); false when the client went away. */
export async function waitOutDelay(reply: FakeReply, sink: ReplySink): Promise<boolean> {
  if (reply.delayMs === undefined || reply.delayMs <= 0) return true;
  await Promise.race([new Promise((resolve) => setTimeout(resolve, reply.delayMs)), sink.closed]);
  return !sink.destroyed;
}
