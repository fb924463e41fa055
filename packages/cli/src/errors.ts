import { PantoError } from '@panto/core';

/** Exit codes of the `panto` command. */
export const EXIT_OK = 0;
/** A runtime failure: the provider failed after its retries, a session could not be read, … */
export const EXIT_FAILURE = 1;
/** A usage error: an unknown flag, a bad value, flags that do not go together. */
export const EXIT_USAGE = 2;
/** The user interrupted a one-shot run (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** A command line the CLI cannot run: reported with a usage line and exit code 2. */
export class UsageError extends PantoError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/** A failure the CLI reports in one line (no stack trace) and exits 1 for. */
export class CliError extends PantoError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
  }
}
