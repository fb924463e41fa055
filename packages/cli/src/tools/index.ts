import type { Tool } from '@panto/core';
import { createBashTool, type BashToolOptions } from './bash.js';
import { createEditTool } from './edit.js';
import { createReadTool } from './read.js';
import type { Limits } from './truncate.js';
import { createWriteTool } from './write.js';

export { createBashTool, DEFAULT_BASH_TIMEOUT_MS, type BashToolOptions } from './bash.js';
export { createEditTool, type EditToolOptions } from './edit.js';
export { createReadTool, type ReadToolOptions } from './read.js';
export { DEFAULT_LIMITS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, type Limits } from './truncate.js';
export { createWriteTool, type WriteToolOptions } from './write.js';

export interface CodingToolsOptions {
  /** The working folder: relative paths resolve against it and commands run in it. */
  cwd: string;
  limits?: Limits;
  bash?: Omit<BashToolOptions, 'cwd' | 'limits'>;
}

/**
 * The tools of the coding agent: `read`, `write`, `edit` and `bash`, all working in `cwd`.
 *
 * @example
 * for (const tool of createCodingTools({ cwd: process.cwd() })) agent.tools.register(tool);
 */
export function createCodingTools(options: CodingToolsOptions): Tool[] {
  const common = options.limits ? { cwd: options.cwd, limits: options.limits } : { cwd: options.cwd };
  return [createReadTool(common), createWriteTool({ cwd: options.cwd }), createEditTool({ cwd: options.cwd }), createBashTool({ ...options.bash, ...common })];
}
