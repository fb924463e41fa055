/**
 * Agent items as JSON lines. They are JSON but for one thing: an input file or image may
 * carry its data as bytes (`Uint8Array`), which `JSON.stringify` would turn into an object of
 * numbered keys. Bytes are written as `{ "__panto_bytes": "<base64>" }` and read back as bytes;
 * an object of the item's own that looks like one of these markers (its only key is a marker's)
 * is written as `{ "__panto_object": [[key, value]] }`, so it comes back as it was.
 */
const BYTES = '__panto_bytes';
const OBJECT = '__panto_object';

function onlyKey(value: object): string | undefined {
  const keys = Object.keys(value);
  return keys.length === 1 ? keys[0] : undefined;
}

export function encodeItem(item: unknown): string {
  return JSON.stringify(item, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return { [BYTES]: Buffer.from(value).toString('base64') };
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const key = onlyKey(value);
      if (key === BYTES || key === OBJECT) return { [OBJECT]: Object.entries(value) };
    }
    return value;
  });
}

/** The reviver that turns what {@link encodeItem} wrote back into bytes and objects. */
export function reviveItem(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const key = onlyKey(record);
  if (key === BYTES && typeof record[BYTES] === 'string') return new Uint8Array(Buffer.from(record[BYTES], 'base64'));
  if (key === OBJECT && Array.isArray(record[OBJECT])) return Object.fromEntries(record[OBJECT] as Array<[string, unknown]>);
  return value;
}
