/**
 * A signal that aborts when any of `signals` does, with the first one's reason — what
 * `AbortSignal.any` does, without its cost: on Node 20 a composite signal keeps weak
 * references to its sources and each `addEventListener` on it validates and registers
 * through them, and a turn's signal is a composite of composites (deadline, lease, budget,
 * then the provider call's idle watchdog), hundreds of events a call. This one is a plain
 * `AbortController`; `dispose` takes its listeners off the sources once it is no longer
 * needed (sources such as a process-wide deadline outlive it).
 *
 * @example
 * const { signal, dispose } = anySignal([request.signal, lease.signal]);
 * try { await agent.runStep(undefined, { signal }); } finally { dispose(); }
 */
export function anySignal(signals: readonly AbortSignal[]): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const listeners = signals.map((signal) => {
    const listener = (): void => {
      controller.abort(signal.reason);
      dispose();
    };
    signal.addEventListener('abort', listener, { once: true });
    return { signal, listener };
  });
  const dispose = (): void => {
    for (const { signal, listener } of listeners) signal.removeEventListener('abort', listener);
  };
  return { signal: controller.signal, dispose };
}
