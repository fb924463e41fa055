#!/usr/bin/env node
// The `panto` command as npm links it (`node_modules/.bin/panto`, `npm link`, a global
// install). It is committed and executable, so the link exists right after `npm install`:
// it runs the build (`dist/entry/process-main.js`) when there is one, and otherwise the TypeScript
// sources through tsx, with the `@panto/source` export condition so that the workspace
// packages (`@panto/core`) resolve to their sources too.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const built = new URL('../dist/entry/process-main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // Registered last, so it runs first: adds the condition, then lets tsx resolve.
  const hooks = `export async function resolve(specifier, context, next) {
    const conditions = context.conditions.includes('@panto/source') ? context.conditions : [...context.conditions, '@panto/source'];
    return next(specifier, { ...context, conditions });
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  await import(new URL('../src/entry/process-main.ts', import.meta.url).href);
}
