/** Text from files and models shown on the terminal without letting it move the cursor or rewrite a line. */

// C0 controls but tab and line feed, DEL and C1 controls, and the bidirectional overrides.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with its control characters written as escapes. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (char) => (char === '\r' ? '\\r' : char === '\x1b' ? '\\e' : `\\u{${char.codePointAt(0)!.toString(16)}}`));
}
