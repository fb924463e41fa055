import { emitKeypressEvents } from 'node:readline';
import type { InputStream } from './terminal.js';

/** A key as node's readline decodes it (`name` is absent for plain characters; `sequence` is what was typed). */
export interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/**
 * Reads single keys from a terminal in raw mode until the returned stop function is called
 * (which puts the terminal back in cooked mode and pauses the stream, so Ctrl-C is a
 * SIGINT again). `onKey` must not throw.
 */
export function readKeys(input: InputStream, onKey: (text: string | undefined, key: Key) => void): () => void {
  emitKeypressEvents(input);
  const listener = (text: string | undefined, key: Key | undefined) => onKey(text, key ?? { sequence: text ?? '' });
  input.on('keypress', listener);
  input.setRawMode?.(true);
  input.resume();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    input.off('keypress', listener);
    input.setRawMode?.(false);
    input.pause();
  };
}

/** Whether a key is a printable character to type (not a control key). */
export function printable(text: string | undefined, key: Key): text is string {
  return text !== undefined && text.length > 0 && !key.ctrl && !key.meta && !/[\u0000-\u001f\u007f]/.test(text);
}
