/**
 * Where LangGraph checkpoints live: one partition per thread (`LANGGRAPH#<thread>`), holding
 * per namespace a head (`H#<ns>`), its checkpoints (`C#<ns>#<checkpoint id>`, newest last),
 * the channel values they name (`B#<ns>#<channel>#<version>#<checkpoint that wrote it>`, written
 * once and shared by every later checkpoint that keeps that version — the writer's id in the
 * key keeps two branches that both reach a version from ever sharing a value) and the pending
 * writes of each checkpoint's tasks
 * (`W#<ns>#<checkpoint id>#<task>#<index>`). See docs/aws.md, "The SDK adapters' items".
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { keyPart, LANGGRAPH_PK_PREFIX, LOG_HEAD_SK_PREFIX, paddedIndex } from '../shared/adapter-keys.js';

/** The `byOwner` index key every thread's heads carry: `list()` without a thread reads the threads there. */
export const THREADS_INDEX_KEY = 'LANGGRAPH_THREADS';
export const CHECKPOINT_SK_PREFIX = 'C#';
export const BLOB_SK_PREFIX = 'B#';
export const WRITE_SK_PREFIX = 'W#';
/** Added to a write's index in its sort key: LangGraph's special writes have negative ones (-1 … -4). */
const WRITE_INDEX_OFFSET = 1000;

export function threadPk(threadId: string): string {
  return `${LANGGRAPH_PK_PREFIX}${keyPart(threadId)}`;
}

export function itemKey(pk: string, sk: string): Record<string, AttributeValue> {
  return { [ADAPTER_ATTR.pk]: { S: pk }, [ADAPTER_ATTR.sk]: { S: sk } };
}

export function headSk(ns: string): string {
  return `${LOG_HEAD_SK_PREFIX}${keyPart(ns)}`;
}

/** The sort-key prefix of a namespace's checkpoints; ids (UUIDv6) sort by time after it. */
export function checkpointPrefix(ns: string): string {
  return `${CHECKPOINT_SK_PREFIX}${keyPart(ns)}#`;
}

export function checkpointSk(ns: string, checkpointId: string): string {
  return `${checkpointPrefix(ns)}${keyPart(checkpointId)}`;
}

export function blobSk(ns: string, channel: string, version: string | number, writer: string): string {
  return `${BLOB_SK_PREFIX}${keyPart(ns)}#${keyPart(channel)}#${keyPart(String(version))}#${keyPart(writer)}`;
}

/** The sort-key prefix of one checkpoint's pending writes. */
export function writesPrefix(ns: string, checkpointId: string): string {
  return `${WRITE_SK_PREFIX}${keyPart(ns)}#${keyPart(checkpointId)}#`;
}

export function writeSk(ns: string, checkpointId: string, taskId: string, index: number): string {
  return `${writesPrefix(ns, checkpointId)}${keyPart(taskId)}#${paddedIndex(index + WRITE_INDEX_OFFSET)}`;
}

/** The `byOwner` sort key of a thread's namespace head. */
export function threadIndexSk(threadId: string, ns: string): string {
  return `${keyPart(threadId)}#${keyPart(ns)}`;
}

/** The folder under `<prefix>offload/` of a thread's texts. */
export function threadObjectId(threadId: string): string {
  return `langgraph/${keyPart(threadId)}`;
}
