import type { JsonValue } from '@panto/core';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** A tool input that does not match the tool's schema; the model sees the message. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

export type ToolInput = { readonly [key: string]: JsonValue };

export function requiredString(input: ToolInput, name: string, options: { allowEmpty?: boolean } = {}): string {
  const value = input[name];
  if (typeof value !== 'string') throw new ToolInputError(`"${name}" must be a string`);
  if (!options.allowEmpty && value === '') throw new ToolInputError(`"${name}" must not be empty`);
  return value;
}

export function optionalPositiveInteger(input: ToolInput, name: string): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ToolInputError(`"${name}" must be a positive integer`);
  }
  return value;
}

/** A path from the model: relative ones resolve against the working folder. */
export function resolvePath(cwd: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** How a path is shown to the user: relative to the working folder when it is inside it. */
export function relativeToCwd(cwd: string, absolute: string): string {
  const rel = relative(cwd, absolute);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? absolute : rel;
}

/** An error result the model sees (the step goes on). */
export function errorResult(content: string): { content: string; is_error: true } {
  return { content, is_error: true };
}

/** A Node file-system error in words a model can act on. */
export function describeFsError(error: unknown, path: string): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ENOENT':
      return `File not found: ${path}`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: ${path}`;
    case 'EISDIR':
      return `${path} is a directory, not a file`;
    case 'ENOTDIR':
      return `A parent of ${path} is not a directory`;
    default:
      return `Cannot access ${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
