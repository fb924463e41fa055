/**
 * How deep a JSON value that enters panto from outside may nest: an import's lines, a
 * provider's tool-call arguments, an MCP or extension tool's result, a request body.
 * `JSON.parse` reads any depth, but `JSON.stringify` — and every SDK, store and route that
 * calls it — recurses, and overflows the stack a few thousand levels down. A value deeper
 * than the limit is refused where it enters, so nothing stored can make a later read fail.
 */

/**
 * The deepest nesting of objects and arrays a JSON value from outside may have: 128 levels
 * (`{}` and `[]` are one level; `{"a":[1]}` two). Real tool inputs and results nest a
 * handful of levels; this is far beyond any of them and far below what breaks a stack.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * The depth of nesting a session log line may have: its own four levels (entry → message →
 * content → block) above a tool call's input of at most {@link MAX_JSON_DEPTH}.
 */
export const MAX_ENTRY_DEPTH = MAX_JSON_DEPTH + 4;

/**
 * Whether `value` nests objects and arrays more than `limit` levels deep. Walks the value
 * without recursion (so it cannot overflow the stack itself) and stops at the first path
 * that goes too deep.
 *
 * @example
 * exceedsJSONDepth(JSON.parse('[[[]]]'), 2); // true
 */
export function exceedsJSONDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const current = stack.pop() as object;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? (current as unknown[]) : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Whether the JSON text `text` could nest more than `limit` levels: false when it holds no
 * more than `limit` `{` and `[` in all — each level opens with one, so such a text cannot —
 * and most texts need no walk at all. Counted with `indexOf`, which is far cheaper than
 * walking the parsed value.
 */
export function mayExceedJSONDepth(text: string, limit: number): boolean {
  if (text.length <= 2 * limit) return false;
  const braces = countUpTo(text, '{', limit + 1);
  return braces + countUpTo(text, '[', limit + 1 - braces) > limit;
}

/** How many times `char` occurs in `text`, counting no further than `most`. */
function countUpTo(text: string, char: string, most: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count < most; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** The words every refusal uses, so that a reader sees one rule: "nested deeper than 128 levels". */
export function tooDeepReason(what: string, limit: number = MAX_JSON_DEPTH): string {
  return `${what} is nested deeper than ${limit} levels, the limit for JSON from outside panto`;
}
