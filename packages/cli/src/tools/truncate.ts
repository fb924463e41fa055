/** Tool results stay under both caps; what was cut is said in a note. */
export const MAX_OUTPUT_BYTES = 50 * 1024;
export const MAX_OUTPUT_LINES = 2000;

export interface Limits {
  maxBytes: number;
  maxLines: number;
}

export const DEFAULT_LIMITS: Limits = { maxBytes: MAX_OUTPUT_BYTES, maxLines: MAX_OUTPUT_LINES };

export interface Truncation {
  /** The kept text (whole lines, except when a single line alone is over the byte cap). */
  text: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  keptLines: number;
  keptBytes: number;
}

/** Splits text into lines; a final newline does not start another line. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Keeps the beginning of `text`: as many whole lines as fit both caps. */
export function truncateHead(text: string, limits: Limits = DEFAULT_LIMITS): Truncation {
  return truncate(text, limits, 'head');
}

/** Keeps the end of `text`: as many whole lines as fit both caps. */
export function truncateTail(text: string, limits: Limits = DEFAULT_LIMITS): Truncation {
  return truncate(text, limits, 'tail');
}

/**
 * Keeps whole lines from one end while both caps hold; a first line alone over the byte
 * cap is cut (at a character boundary) on the side away from the kept end.
 */
function truncate(text: string, limits: Limits, keep: 'head' | 'tail'): Truncation {
  const lines = linesOf(text);
  const totalBytes = Buffer.byteLength(text);
  const ordered = keep === 'head' ? lines : [...lines].reverse();
  const kept: string[] = [];
  let bytes = 0;
  for (const line of ordered) {
    if (kept.length >= limits.maxLines) break;
    const size = Buffer.byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > limits.maxBytes) {
      if (kept.length === 0) {
        const part = keep === 'head' ? cutBytesFromStart(line, limits.maxBytes) : cutBytesFromEnd(line, limits.maxBytes);
        kept.push(part);
        bytes = Buffer.byteLength(part);
      }
      break;
    }
    kept.push(line);
    bytes += size;
  }
  // The last line kept (in reading-away order) differs from its source when it was cut.
  const truncated = kept.length < lines.length || (kept.length > 0 && kept[kept.length - 1] !== ordered[kept.length - 1]);
  if (keep === 'tail') kept.reverse();
  return {
    text: truncated ? kept.join('\n') : text,
    truncated,
    totalLines: lines.length,
    totalBytes,
    keptLines: kept.length,
    keptBytes: truncated ? bytes : totalBytes,
  };
}

/** "12.3 KB", "512 B": sizes as the CLI shows them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that does not split a character. */
function cutBytesFromStart(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  let end = Math.min(maxBytes, buffer.length);
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.toString('utf8', 0, end);
}

/** The longest suffix of `text` of at most `maxBytes` UTF-8 bytes that does not split a character. */
function cutBytesFromEnd(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  let start = Math.max(0, buffer.length - maxBytes);
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.toString('utf8', start);
}
