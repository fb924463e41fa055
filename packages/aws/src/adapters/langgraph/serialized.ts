/**
 * A value LangGraph's serializer made (`serde.dumpsTyped`: a type and bytes) as JSON: the
 * bytes as text when they are UTF-8 (JSON, in practice), else as base64 — so a checkpoint, a
 * channel value or a pending write is one JSON line of an item, and offloads like any other.
 */
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';

/** `t`: the serializer's type; `s`: the bytes as UTF-8 text, or `b`: base64. */
export type Serialized = { t: string; s: string } | { t: string; b: string };

const strictUTF8 = new TextDecoder('utf-8', { fatal: true });

export async function serialize(serde: SerializerProtocol, value: unknown): Promise<Serialized> {
  const [type, bytes] = await serde.dumpsTyped(value);
  try {
    return { t: type, s: strictUTF8.decode(bytes) };
  } catch {
    return { t: type, b: Buffer.from(bytes).toString('base64') };
  }
}

export function deserialize(serde: SerializerProtocol, value: Serialized): Promise<unknown> {
  return serde.loadsTyped(value.t, 's' in value ? value.s : new Uint8Array(Buffer.from(value.b, 'base64')));
}
