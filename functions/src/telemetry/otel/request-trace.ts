/**
 * The trace of the request being served, carried through its async calls: the request's span
 * (what a turn's spans are children of) and the span a store call made now belongs under — the
 * running turn's while a step runs, else the request's. Our own AsyncLocalStorage rather than
 * a global OpenTelemetry context manager: panto's provider is not registered globally, so it
 * neither takes over nor is taken over by another one in the process.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';

export interface RequestTrace {
  /** The context holding the request's span. */
  readonly request: Context;
  /** The context a store call's span starts under: the running turn's, else `request`. */
  current: Context;
}

export const requestTraces = new AsyncLocalStorage<RequestTrace>();
