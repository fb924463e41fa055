/** A ref that always holds the value of the latest render: for effects that call functions of the component. */
import { useRef } from 'preact/hooks';

/**
 * The latest `value`, in a ref that stays the same object across renders. An effect that
 * must run only when something else changes (the page opened, a session was chosen) calls
 * `latest.current(...)` and so always reaches the newest state, without naming the function
 * — new on every render — among its dependencies.
 */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}
