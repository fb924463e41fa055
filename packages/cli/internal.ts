/**
 * Pieces of the CLI that the repository's own benchmarks and end-to-end tests reach for, and
 * that are not the package's API. A workspace-only entry: `@panto/cli/internal` resolves only
 * under the `@panto/source` condition (tsx, vitest, the type checker here), this file is
 * outside `src/` so the build never compiles it, and `files` leaves it out of the package.
 */
export { historyFileFor } from './src/session/session-dir.js';
export { HISTORY_SIZE, InputHistory } from './src/ui/input-history.js';
export { loadMarkdownRenderer, MarkdownStream } from './src/ui/markdown.js';
export { resolveSession } from './src/session/short-id.js';
export { Checkpoints } from './src/checkpoints/checkpoints.js';
