/**
 * Every condition, update and key expression the package sends, as named constants with
 * `#name` / `:value` placeholders. A `#x` placeholder always stands for the attribute `x`
 * (see `ATTR` in attributes.ts), so {@link namesFor} derives `ExpressionAttributeNames` from
 * the expressions themselves.
 */

/** The META item exists and belongs to `:owner` — a live session or a tombstone. */
export const OWNED_BY = 'attribute_exists(#pk) AND #owner = :owner';

/**
 * A live session of `:owner`: its META item exists, is the owner's, and is not a tombstone.
 * Every append, every lease and (in code, see meta/visibility.ts) every read checks this, so once
 * a delete has turned META into a tombstone nothing can be added to the session.
 */
export const META_OF_OWNER = `${OWNED_BY} AND attribute_not_exists(#deleted_at)`;

/** Create a session (or an imported one's META) only if the id is free. */
export const CREATE_CONDITION = 'attribute_not_exists(#pk)';

/**
 * A live session of `:owner` whose entries are in the table: not archived. Appends check
 * this, so a handle that saw the session before it was archived gets a conflict, loads it
 * again, and so restores it.
 */
export const HOT_META_OF_OWNER = `${META_OF_OWNER} AND attribute_not_exists(#archived_at)`;

/** Append to an empty session: nobody appended since this handle saw it empty. */
export const APPEND_CONDITION_EMPTY = `${HOT_META_OF_OWNER} AND #entry_count = :expected_count AND attribute_not_exists(#head)`;

/** Append after `:expected_head`: the head and entry count are still what this handle saw. */
export const APPEND_CONDITION = `${HOT_META_OF_OWNER} AND #entry_count = :expected_count AND #head = :expected_head`;

/**
 * The META update of a turn's first write (its prompt, taking the lease): the log moves, but
 * not `updated_at` or the index keys derived from it — the turn's last write moves those,
 * once. Each index key that moves is a delete and a put in its index, paid at transaction
 * rates; one that stays is not (see docs/aws.md, "A turn in two writes").
 */
export const APPEND_UPDATE_UNINDEXED = 'SET #head = :head, #next_parent = :next_parent, #entry_count = #entry_count + :added';
/**
 * The part of a META update that moves `updated_at` and the index keys derived from it (with
 * `updatedValues` in keys.ts): every append but a turn's prompt, and a turn's release when
 * the prompt was its only write.
 */
const UPDATED_AT_MOVES = '#updated_at = :updated_at, #gsi1sk = :gsi1sk, #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk';
/**
 * The META update of every other append: also what the `byOwner` index shows of the log (its
 * count and head, as the prompt's write left them unlisted) and its keys. It also (re)sets the
 * `byActivity` keys: the archive sweeper finds the session by its last write, and a session
 * made before the index existed joins it with its next append.
 */
export const APPEND_UPDATE = `${APPEND_UPDATE_UNINDEXED}, #listed_count = #entry_count + :added, #listed_head = :head, ${UPDATED_AT_MOVES}`;
/** Added to {@link APPEND_UPDATE} when the batch names a provider and model. */
export const APPEND_UPDATE_MODEL = ', #active_provider = :active_provider, #active_model = :active_model';
/** Added to {@link APPEND_UPDATE} when the batch holds a user prompt: the first one names the session. */
export const APPEND_UPDATE_TITLE = ', #title = if_not_exists(#title, :title)';
/** Added to {@link APPEND_UPDATE} when the session has a TTL: every write pushes expiry back. */
export const APPEND_UPDATE_EXPIRY = ', #expires_at = :expires_at';

/** Change what META says of a live, unexpired session of `:owner` (its title, its model). */
export const SESSION_UPDATE_CONDITION = `${META_OF_OWNER} AND (attribute_not_exists(#expires_at) OR #expires_at > :now_seconds)`;
/** A part of a session update: its title. */
export const SESSION_UPDATE_TITLE = '#title = :title';
/** Added to {@link SESSION_UPDATE_CONDITION} when a title may change only while it is still `:if_title` (not renamed meanwhile). */
export const SESSION_UPDATE_IF_TITLE = ' AND #title = :if_title';
/** A part of a session update: the provider and model its next turns use. */
export const SESSION_UPDATE_MODEL = '#active_provider = :active_provider, #active_model = :active_model';

/** Each entry item is put only if absent. */
export const ENTRY_PUT_CONDITION = 'attribute_not_exists(#pk)';

/**
 * Added to the append condition when the handle holds the turn lease: the fencing token. A
 * holder whose lease lapsed and was taken by another cannot write, however late it wakes up.
 */
export const APPEND_CONDITION_LEASE = ' AND #lease_id = :lease_id';

/**
 * Added to the append condition of a turn's first write (its prompt), which takes the turn
 * lease in the same transaction: nobody holds an unexpired lease, and the session has not
 * expired (the lease's read would have said so).
 */
export const APPEND_CONDITION_TAKE_LEASE =
  ' AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now) AND (attribute_not_exists(#expires_at) OR #expires_at > :now_seconds)';
/** Added to the condition of the write that takes the lease: the session's model is still the one read (a turn picks its provider by it). */
export const APPEND_CONDITION_SEEN_MODEL = ' AND #active_provider = :seen_provider AND #active_model = :seen_model';
/** As {@link APPEND_CONDITION_SEEN_MODEL}, when META named no model. */
export const APPEND_CONDITION_SEEN_NO_MODEL = ' AND attribute_not_exists(#active_provider)';
/** Added to {@link APPEND_UPDATE} by the write that takes the lease: the lease, when it began, and where the log stood (the prompt is the turn's first entry). */
export const APPEND_UPDATE_TAKE_LEASE =
  ', #lease_id = :lease_id, #lease_expires_at = :lease_expires_at, #lease_started_at = :now, #lease_entry_count = :expected_count';
/** Removed by the write that takes the lease: a stop asked of an earlier holder. */
export const APPEND_REMOVE_TAKE_LEASE = ['#stop_requested'] as const;
/** Removed by a turn's last write, which gives the lease up in the same transaction (the condition fences it). */
export const APPEND_REMOVE_RELEASE_LEASE = ['#lease_id', '#lease_expires_at', '#lease_started_at', '#lease_entry_count', '#stop_requested'] as const;

/** Take the turn lease: this owner's session, and nobody holds an unexpired lease. */
export const LEASE_ACQUIRE_CONDITION = `${META_OF_OWNER} AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)`;
/**
 * The new lease, when it began, and where the session's log stood then (the turn's first
 * entry is the next); a stop asked of an earlier holder is cleared.
 */
export const LEASE_ACQUIRE_UPDATE =
  'SET #lease_id = :lease_id, #lease_expires_at = :lease_expires_at, #lease_started_at = :now, #lease_entry_count = #entry_count REMOVE #stop_requested';
/** Renew the lease only while it is still ours and the session is not being deleted. */
export const LEASE_RENEW_CONDITION = '#lease_id = :lease_id AND attribute_not_exists(#deleted_at)';
export const LEASE_RENEW_UPDATE = 'SET #lease_expires_at = :lease_expires_at';
/** Release the lease only if it is still ours. */
export const LEASE_RELEASE_CONDITION = '#lease_id = :lease_id';
export const LEASE_RELEASE_UPDATE = 'REMOVE #lease_id, #lease_expires_at, #lease_started_at, #lease_entry_count, #stop_requested';
/**
 * The release of a turn that wrote its prompt and nothing after (an error before any answer,
 * a stop): the turn's last write, so it moves `updated_at`, the index keys and the listed log,
 * as the last append of a turn does. Not on a tombstone: a deleted session stays out of the indexes.
 */
export const LEASE_RELEASE_TOUCH_UPDATE = `SET #listed_count = #entry_count, #listed_head = #head, ${UPDATED_AT_MOVES} ${LEASE_RELEASE_UPDATE}`;
export const LEASE_RELEASE_TOUCH_CONDITION = `${LEASE_RELEASE_CONDITION} AND attribute_not_exists(#deleted_at)`;
/** Ask the holder of a live lease on this owner's session to stop. */
export const STOP_REQUEST_CONDITION = `${META_OF_OWNER} AND attribute_exists(#lease_id) AND #lease_expires_at > :now`;
/** The stop names the lease it is for, so it can never stop a later turn. */
export const STOP_REQUEST_UPDATE = 'SET #stop_requested = #lease_id';

/**
 * Turn META into a tombstone, the first step of a delete: only the owner's. A tombstone
 * passes too, so a repeated delete finishes what a crashed one started.
 */
export const TOMBSTONE_CONDITION = OWNED_BY;
/**
 * The tombstone: marked deleted (the first delete's time is kept), out of the owner's
 * index, and expiring at `:expires_at` so that DynamoDB's TTL removes a tombstone a crashed
 * delete left — and the TTL cleanup then purges the partition once more.
 */
export const TOMBSTONE_UPDATE =
  'SET #deleted_at = if_not_exists(#deleted_at, :deleted_at), #expires_at = :expires_at REMOVE #gsi1pk, #gsi1sk, #gsi2pk, #gsi2sk';
/** The last step of a delete: remove META only while it is a tombstone. */
export const DELETE_TOMBSTONE_CONDITION = 'attribute_exists(#deleted_at)';

/** Every item of a session (entries, then META: `E#…` sorts before `META`). */
export const QUERY_SESSION = '#pk = :pk';
/** A session's entry items from `:from_sk` on, and its META (which sorts after them). */
export const QUERY_SESSION_FROM = '#pk = :pk AND #sk >= :from_sk';
/** The entry items of a session, in order. */
export const QUERY_ENTRIES = '#pk = :pk AND begins_with(#sk, :entry_prefix)';
/** An owner's sessions on the `byOwner` index. */
export const QUERY_OWNER = '#gsi1pk = :gsi1pk';
/** Hide sessions whose TTL has passed but that DynamoDB has not deleted yet. */
export const NOT_EXPIRED_FILTER = 'attribute_not_exists(#expires_at) OR #expires_at > :now_seconds';

/**
 * Claim an idempotency key: nobody has, its record expired (TTL deletes lazily), or an
 * earlier claim is still in progress past its deadline (its request died).
 */
export const IDEMPOTENCY_CLAIM_CONDITION =
  'attribute_not_exists(#pk) OR #expires_at < :now_seconds OR (#status = :in_progress AND #in_progress_expires_at < :now)';
/** Complete or release a claim only while it is still this request's (a later claim may have taken over). */
export const IDEMPOTENCY_OWN_CLAIM = '#status = :in_progress AND #claim_id = :claim_id';
/** Store the answer of a claimed request, inline (gzipped) … */
export const IDEMPOTENCY_COMPLETE_UPDATE =
  'SET #status = :completed, #response_status = :response_status, #response_body = :response_body, #expires_at = :expires_at REMOVE #in_progress_expires_at';
/** … or as a pointer to the S3 object that holds it. */
export const IDEMPOTENCY_COMPLETE_REF_UPDATE =
  'SET #status = :completed, #response_status = :response_status, #response_ref = :response_ref, #expires_at = :expires_at REMOVE #in_progress_expires_at';

// Archival: see archive/archive-session.ts and archive/restore-session.ts.

/** A shard of the `byActivity` index, sessions last active before `:cutoff` (an ISO time). */
export const QUERY_COLD = '#gsi2pk = :gsi2pk AND #gsi2sk < :cutoff';

/** No unexpired turn lease: the sweeper never archives a session a turn is running on. */
const NOT_LEASED = '(attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)';

/**
 * Mark a session archived (its archive object written and verified): still this owner's
 * live, hot session, not leased, and holding exactly the entries the object holds — no
 * append since the sweeper read META.
 */
export const ARCHIVE_CONDITION = `${HOT_META_OF_OWNER} AND #entry_count = :expected_count AND #head = :expected_head AND ${NOT_LEASED}`;
/** {@link ARCHIVE_CONDITION} for a session with no entries yet. */
export const ARCHIVE_CONDITION_EMPTY = `${HOT_META_OF_OWNER} AND #entry_count = :expected_count AND attribute_not_exists(#head) AND ${NOT_LEASED}`;
/** Added to the archive condition when META has an incarnation: the same creation of the session. */
export const ARCHIVE_CONDITION_INCARNATION = ' AND #incarnation = :incarnation';
/**
 * The archive state, and the claim of the sweeper that set it (it goes on to remove the
 * entry items). The `byActivity` keys stay until the items are gone, so a sweep finds a
 * session whose sweeper died meanwhile.
 */
export const ARCHIVE_UPDATE =
  'SET #archived_at = :archived_at, #archive_bucket = :archive_bucket, #archive_key = :archive_key, #archive_bytes = :archive_bytes, #archive_sha256 = :archive_sha256, #archive_entry_count = :expected_count, #archive_claim_id = :claim_id, #archive_claim_expires_at = :claim_expires_at';
/** Added to {@link ARCHIVE_UPDATE} for a session with entries: the newest one the archive holds. */
export const ARCHIVE_UPDATE_HEAD = ', #archive_head = :expected_head';

/**
 * Claim an archived session of `:owner` to remove its leftover items (a sweeper) or restore
 * it (a request): nobody holds an unexpired claim.
 */
export const ARCHIVE_CLAIM_CONDITION = `${META_OF_OWNER} AND attribute_exists(#archived_at) AND (attribute_not_exists(#archive_claim_id) OR #archive_claim_expires_at <= :now)`;
export const ARCHIVE_CLAIM_UPDATE = 'SET #archive_claim_id = :claim_id, #archive_claim_expires_at = :claim_expires_at';
/**
 * The claim is still ours and the session is not being deleted: the first action of every
 * transaction that writes or deletes an archived session's items (so a holder whose claim
 * lapsed writes nothing), and of the claim's last update.
 */
export const CLAIM_HELD_CONDITION = '#archive_claim_id = :claim_id AND attribute_not_exists(#deleted_at)';
/** Each such transaction renews the claim it checks. */
export const CLAIM_RENEW_UPDATE = 'SET #archive_claim_expires_at = :claim_expires_at';
/** A holder that failed gives its claim up (if still its own), so the next need not wait for it to lapse. */
export const CLAIM_RELEASE_UPDATE = 'REMOVE #archive_claim_id, #archive_claim_expires_at';
/** The archive is whole: its items are gone, so it leaves the `byActivity` index, and the claim is given up. */
export const ARCHIVE_FINISH_UPDATE = 'REMOVE #gsi2pk, #gsi2sk, #archive_claim_id, #archive_claim_expires_at';
/**
 * The restore is whole: the entries are items again. Back in the `byActivity` index, active
 * from now (so reading a cold session does not send it straight back); the archive object's
 * description stays, so archiving the same entries again reuses the object.
 */
export const RESTORE_FINISH_UPDATE =
  'SET #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk, #restored_at = :restored_at REMOVE #archived_at, #archive_claim_id, #archive_claim_expires_at';

/** META items a table made before `byActivity` existed holds, not yet in the index (a one-time Scan filter). */
export const ACTIVITY_BACKFILL_FILTER =
  '#sk = :meta_sk AND attribute_not_exists(#gsi2pk) AND attribute_not_exists(#archived_at) AND attribute_not_exists(#deleted_at)';
/** Index such an item, unless an append (which sets the keys itself), an archive or a delete got there first. */
export const ACTIVITY_BACKFILL_CONDITION =
  'attribute_exists(#pk) AND attribute_not_exists(#gsi2pk) AND attribute_not_exists(#archived_at) AND attribute_not_exists(#deleted_at)';
export const ACTIVITY_BACKFILL_UPDATE = 'SET #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk';
/** A run takes a migration that has not finished and that no live run holds (a crashed run's claim lapses). */
export const MIGRATION_CLAIM_CONDITION = 'attribute_not_exists(#done_at) AND (attribute_not_exists(#claim_id) OR #claim_expires_at <= :now)';
export const MIGRATION_CLAIM_UPDATE = 'SET #claim_id = :claim_id, #claim_expires_at = :claim_expires_at';
/** Each page a run finishes moves the cursor on and renews its claim — only while the claim is still its own. */
export const MIGRATION_HELD_CONDITION = '#claim_id = :claim_id';
export const MIGRATION_PAGE_UPDATE = 'SET #cursor = :cursor, #claim_expires_at = :claim_expires_at ADD #migrated :migrated';
/** The last page: done for good. */
export const MIGRATION_DONE_UPDATE = 'SET #done_at = :done_at ADD #migrated :migrated REMOVE #cursor, #claim_id, #claim_expires_at';
/** A run that stops early (its deadline) gives its claim up, so the next goes on at once. */
export const MIGRATION_RELEASE_UPDATE = 'REMOVE #claim_id, #claim_expires_at';

/** The names of each expression seen (a few dozen constants, and the ledger's per-hold ones), kept bounded. */
const namesOf = new Map<string, readonly (readonly [string, string])[]>();

/** `{ '#x': 'x' }` for every `#x` placeholder in the expressions (a new object each call: callers add to it). */
export function namesFor(...expressions: readonly string[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const expression of expressions) {
    let found = namesOf.get(expression);
    if (found === undefined) {
      found = [...expression.matchAll(/#([A-Za-z0-9_]+)/g)].map((match) => [match[0], match[1]!] as const);
      if (namesOf.size >= 1024) namesOf.clear();
      namesOf.set(expression, found);
    }
    for (const [placeholder, name] of found) names[placeholder] = name;
  }
  return names;
}
