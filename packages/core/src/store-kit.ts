/**
 * `@panto/core/store-kit`: what an author of a `SessionStore` needs beyond the interface —
 * the chain bookkeeping ({@link SessionLog}), the log format's one encoder and one decoder,
 * and the rebuild of a conversation from entries. A new store needs only its own I/O on
 * top of these; see docs/stores.md (MemoryStore is the worked example).
 */
export { type BuiltLog, SessionLog, type LogHead } from './session/log.js';
// What a store throws, the ids and clock it stamps with, and the interface's types (as at the
// package's root: a store imports these from here, which reaches nothing else of the package).
export * from './errors.js';
export { ID_RULE, isValidId, newId, systemClock, type Clock, type IdGenerator } from './ids.js';
export type { ActiveModel, AppendOptions, DiskMessage, LoadedSession, LoadOptions, SessionEntry } from './session/records.js';
export type { SessionStore } from './session/store.js';
export {
  assertUtf8Lines,
  decodeSession,
  SessionDecoder,
  sourceLines,
  type DecodedBatch,
  type DecodedSession,
  type DecoderEnd,
  type SourceLine,
} from './session/decoder.js';
export { decodeEntry, decodeHeader, decodeLine, isISOTime, type LineRules, parseLine } from './session/decode-line.js';
export { encodeBatch, encodeBatchLines, encodeHeader, SESSION_FORMAT_VERSION, type SessionHeader, withoutFraming } from './session/format.js';
export {
  activeEntry,
  INTERRUPTED_TOOL_RESULT,
  modelOf,
  newestModel,
  rebuildConversation,
  repairToolResults,
  resumeParent,
  type RebuildOptions,
  type RebuiltSession,
} from './session/rebuild.js';
export { SessionTree } from './session/tree.js';
