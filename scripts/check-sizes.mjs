// Holds the source to the house's sizes (CONTRIBUTING.md, docs/overview.md): no source file over
// 400 lines, no function over 80. Run by `npm run lint` (and so by `npm test`); prints what is
// over and exits 1. `--top N` also lists the N longest files and functions, over or not.
//
// Source is every TypeScript and JavaScript file git tracks outside tests (`*.test.ts`,
// `test/`, fixtures) and generated files. A function is any function, method, accessor,
// constructor or arrow function, counted from its first line to its last; a function inside
// another counts for itself and for the one around it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const NOT_SOURCE = [/\.test\.tsx?$/, /^test\//, /\/__fixtures__\//, /\.d\.ts$/, /(^|\/)dist\//, /\.gen\.ts$/];

/** The source files git tracks (and the ones it would), as paths from the root. */
export function sourceFiles() {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return listed.split('\n').filter((path) => SOURCE.test(path) && !NOT_SOURCE.some((rule) => rule.test(path)));
}

/** Every function of `path` with its name and length in lines. */
export function functionsOf(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(node.getStart(source));
      const last = lineOf(node.getEnd());
      found.push({ name: nameOf(node), line: first, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node) {
  if (node.name !== undefined && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name !== undefined && ts.isPrivateIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent !== undefined && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent !== undefined && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

export function measure() {
  const files = [];
  const functions = [];
  for (const path of sourceFiles()) {
    const text = readFileSync(join(root, path), 'utf8');
    files.push({ path, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    for (const fn of functionsOf(path, text)) functions.push({ path, ...fn });
  }
  return { files, functions };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, functions } = measure();
  const longFiles = files.filter((file) => file.lines > MAX_FILE_LINES);
  const longFunctions = functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES);
  const topIndex = process.argv.indexOf('--top');
  if (topIndex !== -1) {
    const top = Number(process.argv[topIndex + 1] ?? 10);
    console.log(`${files.length} source files, ${functions.length} functions. Longest files:`);
    for (const file of [...files].sort((a, b) => b.lines - a.lines).slice(0, top)) console.log(`  ${String(file.lines).padStart(5)}  ${file.path}`);
    console.log('Longest functions:');
    for (const fn of [...functions].sort((a, b) => b.lines - a.lines).slice(0, top))
      console.log(`  ${String(fn.lines).padStart(5)}  ${fn.path}:${fn.line} ${fn.name}`);
  }
  for (const file of longFiles) console.error(`${file.path}: ${file.lines} lines (at most ${MAX_FILE_LINES}): split it by responsibility`);
  for (const fn of longFunctions) console.error(`${fn.path}:${fn.line}: ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  if (longFiles.length + longFunctions.length > 0) process.exit(1);
  if (topIndex === -1)
    console.log(`sizes: ${files.length} source files within ${MAX_FILE_LINES} lines, ${functions.length} functions within ${MAX_FUNCTION_LINES}`);
}
