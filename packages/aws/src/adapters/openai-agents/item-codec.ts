/**
 * Agent items as JSON lines. They are JSON but for one thing: an input file or image may
 * carry its data as bytes (`Uint8Array`), which `JSON.stringify` would turn into an object of
 * numbered keys. Bytes are written as `{ "__panto_bytes": "<base64>" }` and read back as bytes.
 */
const BYTES_KEY = '__panto_bytes';

export function encodeItem(item: unknown): string {
  return JSON.stringify(item, (_key, value: unknown) => (value instanceof Uint8Array ? { [BYTES_KEY]: Buffer.from(value).toString('base64') } : value));
}

/** The reviver that turns what {@link encodeItem} wrote for bytes back into a `Uint8Array`. */
export function reviveBytes(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const encoded = record[BYTES_KEY];
  if (typeof encoded !== 'string' || Object.keys(record).length !== 1) return value;
  return new Uint8Array(Buffer.from(encoded, 'base64'));
}
