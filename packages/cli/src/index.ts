/**
 * The `panto` command as a library: `run` is the whole CLI with injectable streams,
 * environment and provider factory; the coding tools can be given to any agent.
 */
export { run } from './entry/run-cli.js';
export type { CliEnvironment } from './entry/cli-environment.js';
// The public name of CLI_VERSION (renamed inside the package: @panto/functions has a VERSION of its own).
export { CLI_VERSION as VERSION } from './version.js';
export { HELP, parseArgs, USAGE, type CliOptions } from './entry/args.js';
export { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CliError, UsageError } from './errors.js';
export { folderFromSessionFolderName, pantoHome, sessionDirFor, sessionFolderName } from './session/session-dir.js';
export { defaultSystemPrompt } from './agent/system-prompt.js';
export { LazyFSJSONLStore } from './session/lazy-store.js';
export { exportSessionFile, type ExportResult, type ExportSource } from './session/export-session.js';
export type { ProviderFactory, ProviderChoice } from './agent/provider-choice.js';
export * from './tools/index.js';
export { SandboxGrants, SANDBOX_MODES, type CommandSandbox, type SandboxMode, type SandboxNeed, type SandboxedCommand } from './sandbox/policy.js';
export { startSandbox, type SandboxRequest, type StartedSandbox } from './sandbox/start-sandbox.js';
