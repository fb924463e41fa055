/**
 * Every condition, update and key expression the SDK adapters send, as named constants with
 * `#name` / `:value` placeholders (`#x` always names attribute `x`; `namesFor` derives the
 * names), so a reader sees the exact condition that guards each write.
 */

// A log (Claude Agent SDK transcripts, OpenAI Agents sessions): a head item and entry items.

/** The first append to a log: its head must not exist yet. */
export const LOG_APPEND_CONDITION_NEW = 'attribute_not_exists(#pk)';
/** Any other append: nobody appended, popped or cleared since this handle saw `:expected_count`. */
export const LOG_APPEND_CONDITION = '#entry_count = :expected_count';
/** The head after an append: the new count; where the log starts and when it was made, set by the first. */
export const LOG_APPEND_UPDATE =
  'SET #entry_count = :entry_count, #live_from = if_not_exists(#live_from, :zero), #created_at = if_not_exists(#created_at, :now), #updated_at = :now';
/** Added when the log has a TTL: the head lives as long as its newest entry. */
export const LOG_UPDATE_EXPIRY = ', #expires_at = :expires_at';
/** Added when every entry of the batch carries an id: the batch's hash, so a resend of it is recognised. */
export const LOG_APPEND_UPDATE_BATCH = ', #last_batch = :last_batch';
/** Added to what a listing reads (a Claude session's main transcript): its `byOwner` index keys. */
export const LOG_APPEND_UPDATE_LISTED = ', #gsi1pk = :gsi1pk, #gsi1sk = :gsi1sk';
/** Ends an append whose batch has no hash: an older hash must not match a later resend. */
export const LOG_APPEND_REMOVE_BATCH = ' REMOVE #last_batch';
/** Each entry item is put only if absent. */
export const LOG_ENTRY_PUT_CONDITION = 'attribute_not_exists(#pk)';

/** A pop: the log is still exactly as this handle read it. */
export const LOG_POP_CONDITION = '#entry_count = :expected_count AND #live_from = :live_from';
export const LOG_POP_UPDATE = 'SET #entry_count = :entry_count, #updated_at = :now';

/** A clear: every entry before `entry_count` is dead at once, in one write; new ones go after it. */
export const LOG_CLEAR_CONDITION = 'attribute_exists(#pk)';
export const LOG_CLEAR_UPDATE = 'SET #live_from = #entry_count, #updated_at = :now REMOVE #last_batch';
/** A clear that also takes the log out of its listing (a deleted Claude session). */
export const LOG_CLEAR_UNLIST_UPDATE = 'SET #live_from = #entry_count, #updated_at = :now REMOVE #last_batch, #gsi1pk, #gsi1sk';
/** The head of a cleared log is deleted only while nothing was appended since the clear. */
export const LOG_REMOVE_CONDITION = '#entry_count = :entry_count AND #live_from = :entry_count';

/** A log's entry items from `:from_sk` to `:to_sk`, in order. */
export const LOG_ENTRIES_BETWEEN = '#pk = :pk AND #sk BETWEEN :from_sk AND :to_sk';
/** The items of a partition whose sort key starts with `:prefix` (a log's heads, a checkpoint's writes). */
export const PARTITION_PREFIX = '#pk = :pk AND begins_with(#sk, :prefix)';
/** A whole partition. */
export const PARTITION = '#pk = :pk';
/** What the `byOwner` index holds under one key (a project's Claude sessions, LangGraph's threads). */
export const LISTED_UNDER = '#gsi1pk = :gsi1pk';

// LangGraph: a head per (thread, namespace), checkpoints, channel values and pending writes.

/**
 * A checkpoint that continues a run's line: the namespace's head is still its parent — or is
 * this very checkpoint (the same put, sent again). Another writer that moved the head since
 * makes this put a `CheckpointConflictError`, not a silent fork.
 */
export const CHECKPOINT_CONTINUES_CONDITION = '#head = :parent OR #head = :head';
/** Every checkpoint put moves its namespace's head, and keeps the thread in the `byOwner` index (unchanged keys cost the index nothing). */
export const CHECKPOINT_HEAD_UPDATE = 'SET #head = :head, #gsi1pk = :gsi1pk, #gsi1sk = :gsi1sk';
/** A regular pending write is put only if absent: the first write of a task's index wins, as in LangGraph's own savers. */
export const WRITE_PUT_CONDITION = 'attribute_not_exists(#pk)';
