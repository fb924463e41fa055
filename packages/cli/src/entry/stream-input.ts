/**
 * `--input-format stream-json`: what a line of stdin can say, in the shape of Claude Code's
 * stream-json input — a prompt, `{"type":"user","message":{"role":"user","content":"…"}}`
 * (content may also be a list of text blocks), or an interrupt,
 * `{"type":"control_request","request_id":"…","request":{"subtype":"interrupt"}}` — and the
 * `control_response` that answers a control request. Documented in docs/cli.md.
 */

/** The longest line read (a prompt with a pasted file fits; a runaway producer is cut off). */
export const MAX_INPUT_LINE_BYTES = 8 * 1024 * 1024;

/** What one line asks for. */
export type InputLine =
  | { type: 'prompt'; text: string }
  | { type: 'interrupt'; requestId: string }
  /** A control request panto does not handle: answered with an error response. */
  | { type: 'unsupported'; requestId: string; subtype: string }
  | { type: 'invalid'; reason: string };

/** The answer to a control request, one line of stdout (Claude Code's shape). */
export type ControlResponse = {
  type: 'control_response';
  response: { subtype: 'success'; request_id: string } | { subtype: 'error'; request_id: string; error: string };
};

/**
 * Reads one line (without its line break). Never throws: what is not a prompt or a control
 * request is `invalid`, with the reason.
 *
 * @example
 * parseInputLine('{"type":"user","message":{"role":"user","content":"hi"}}'); // { type: 'prompt', text: 'hi' }
 */
export function parseInputLine(line: string): InputLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { type: 'invalid', reason: `not JSON: ${(error as Error).message}` };
  }
  const object = record(value);
  if (object === undefined) return { type: 'invalid', reason: 'expected a JSON object' };
  switch (object.type) {
    case 'user':
      return userPrompt(object.message);
    case 'control_request': {
      const requestId = object.request_id;
      if (typeof requestId !== 'string' || requestId === '') return { type: 'invalid', reason: 'a control_request needs a request_id (a string)' };
      const subtype = record(object.request)?.subtype;
      if (typeof subtype !== 'string') return { type: 'invalid', reason: 'a control_request needs request.subtype' };
      return subtype === 'interrupt' ? { type: 'interrupt', requestId } : { type: 'unsupported', requestId, subtype };
    }
    default:
      return { type: 'invalid', reason: `unknown type ${JSON.stringify(object.type) ?? 'undefined'} (expected "user" or "control_request")` };
  }
}

function userPrompt(message: unknown): InputLine {
  const object = record(message);
  if (object === undefined) return { type: 'invalid', reason: 'a user line needs message: {"role":"user","content":…}' };
  if (object.role !== undefined && object.role !== 'user')
    return { type: 'invalid', reason: `message.role must be "user", got ${JSON.stringify(object.role)}` };
  const content = object.content;
  let text: string;
  if (typeof content === 'string') {
    text = content;
  } else if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const [index, block] of content.entries()) {
      const item = record(block);
      if (item?.type !== 'text' || typeof item.text !== 'string') {
        return { type: 'invalid', reason: `message.content[${index}]: panto takes text blocks ({"type":"text","text":"…"}), got ${describe(block)}` };
      }
      parts.push(item.text);
    }
    text = parts.join('\n\n');
  } else {
    return { type: 'invalid', reason: 'message.content must be a string or a list of text blocks' };
  }
  if (text.trim() === '') return { type: 'invalid', reason: 'the prompt is empty' };
  return { type: 'prompt', text };
}

function record(value: unknown): { [key: string]: unknown } | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [key: string]: unknown }) : undefined;
}

function describe(value: unknown): string {
  const type = record(value)?.type;
  return typeof type === 'string' ? `a ${JSON.stringify(type).slice(0, 40)} block` : 'something else';
}

/** A line of stdin, or one longer than the limit (its bytes are skipped up to its line break). */
export type ReadLine = { type: 'line'; text: string } | { type: 'too-long'; bytes: number };

/**
 * The lines of `input`, as they arrive (a line break ends each; a last line without one
 * counts; `\r\n` is read as `\n`). A line over `maxBytes` is not kept: it is reported once
 * its end arrives.
 */
export async function* readLines(input: AsyncIterable<string | Buffer>, maxBytes = MAX_INPUT_LINE_BYTES): AsyncGenerator<ReadLine> {
  let pending: Buffer[] = [];
  let size = 0;
  let overflow = false;
  const finish = (): ReadLine => {
    const line: ReadLine = overflow ? { type: 'too-long', bytes: size } : { type: 'line', text: Buffer.concat(pending).toString('utf8').replace(/\r$/, '') };
    pending = [];
    size = 0;
    overflow = false;
    return line;
  };
  for await (const chunk of input) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = bytes.indexOf(10); ; end = bytes.indexOf(10)) {
      const piece = end === -1 ? bytes : bytes.subarray(0, end);
      size += piece.length;
      if (size > maxBytes) overflow = true;
      if (!overflow) pending.push(piece);
      else pending = [];
      if (end === -1) break;
      yield finish();
      bytes = bytes.subarray(end + 1);
    }
  }
  if (size > 0) yield finish();
}
