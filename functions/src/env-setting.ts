/** How a setting of the environment is read, by config.ts and the request budgets (service-limits.ts) alike. */

export type Env = { readonly [name: string]: string | undefined };

/** An integer setting from `env[name]`, within bounds, or `fallback` when unset; a clear error otherwise. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return value;
}
