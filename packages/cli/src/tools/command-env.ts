import { PROVIDER_CREDENTIAL_VARIABLES } from '@panto/core';

/**
 * Names, comma-separated, of withheld variables that commands receive all the same:
 * `PANTO_BASH_PASS_ENV=OPENAI_API_KEY` for a user whose scripts call the API themselves.
 * (Not `PANTO_BASH_ENV`: bash's own `BASH_ENV` names a file to source, and the likeness
 * would mislead.)
 */
export const PASS_ENV_VARIABLE = 'PANTO_BASH_PASS_ENV';

/** The provider credentials panto holds: not for the commands a model runs. */
const WITHHELD = new Set(Object.values(PROVIDER_CREDENTIAL_VARIABLES).flat());

/**
 * The environment of a command the model runs: `env` without the providers' credentials
 * ({@link PROVIDER_CREDENTIAL_VARIABLES}), except those that {@link PASS_ENV_VARIABLE} names.
 * Every other variable passes unchanged.
 *
 * @example
 * commandEnvironment({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-…' }); // { PATH: '/bin' }
 */
export function commandEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const passed = new Set((env[PASS_ENV_VARIABLE] ?? '').split(/[\s,]+/).filter((name) => name !== ''));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || (WITHHELD.has(name) && !passed.has(name))) continue;
    result[name] = value;
  }
  return result;
}
