/**
 * A module imported on first use and remembered, so that importing a provider does not
 * load its SDK: a Lambda that never calls that provider never pays for it at cold start.
 */
export interface LazyModule<T> {
  load(): Promise<T>;
  /** The module once `load()` has resolved; undefined before. */
  readonly loaded: T | undefined;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let pending: Promise<T> | undefined;
  let loaded: T | undefined;
  return {
    load: () =>
      (pending ??= importer().then((module) => {
        loaded = module;
        return module;
      })),
    get loaded() {
      return loaded;
    },
  };
}
