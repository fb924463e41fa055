/**
 * The attribute names of every item the sessions table holds (see docs/aws.md for the item
 * shapes). Expressions refer to each as `#<name>` (see expressions.ts).
 */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  // META
  owner: 'owner',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  /** Newest entry id (the leaf); absent while the session is empty. */
  head: 'head',
  /** The parent the next append chains to: `head`, or the dangling prompt's parent. */
  nextParent: 'next_parent',
  entryCount: 'entry_count',
  activeProvider: 'active_provider',
  activeModel: 'active_model',
  title: 'title',
  /** The session's JSONL header line, with its newline. */
  header: 'header',
  gsi1pk: 'gsi1pk',
  gsi1sk: 'gsi1sk',
  /**
   * `entry_count` and `head` as the session list shows them: set with `updated_at` by every
   * write that moves it (not by a turn's prompt, which leaves the `byOwner` index alone).
   */
  listedCount: 'listed_count',
  listedHead: 'listed_head',
  ttlSeconds: 'ttl_seconds',
  expiresAt: 'expires_at',
  /** The turn lease (see lease/): its holder's id — the fencing token appends check — and expiry (epoch ms). */
  leaseId: 'lease_id',
  leaseExpiresAt: 'lease_expires_at',
  /** When the lease was taken (epoch ms), and the session's entry count then: the running turn's first entry. */
  leaseStartedAt: 'lease_started_at',
  /** The partial answer item (partial/partial-answer.ts): the assistant message so far, as JSON. */
  partialMessage: 'partial_message',
  leaseEntryCount: 'lease_entry_count',
  /** The lease id a stop was asked of (`requestTurnStop`); its holder reads it back when it renews. */
  stopRequested: 'stop_requested',
  /** Set when the session is being deleted: META is a tombstone (see deleteSession). */
  deletedAt: 'deleted_at',
  /** A random id per creation of the session: caches tell a session made again under the same id apart. */
  incarnation: 'incarnation',
  // META: archival (see archive/)
  /** The `byActivity` index keys: a shard of the session id, and `<last activity>#<sessionId>`. Absent once archived. */
  gsi2pk: 'gsi2pk',
  gsi2sk: 'gsi2sk',
  /** Set while the session is archived: its entries are in the archive object, not in the table. */
  archivedAt: 'archived_at',
  /** The session's newest archive object, and what it holds; kept after a restore. */
  archiveBucket: 'archive_bucket',
  archiveKey: 'archive_key',
  archiveBytes: 'archive_bytes',
  archiveSha256: 'archive_sha256',
  archiveEntryCount: 'archive_entry_count',
  archiveHead: 'archive_head',
  /** Held by a sweeper removing an archived session's items, or by a request restoring it (epoch ms expiry). */
  archiveClaimId: 'archive_claim_id',
  archiveClaimExpiresAt: 'archive_claim_expires_at',
  /** ISO-8601 time of the last restore: a restored session counts as active from then. */
  restoredAt: 'restored_at',
  // entry items
  /** JSONL text of the item's entries, each line ending in `\n`. */
  lines: 'lines',
  /** S3 key of an offloaded `lines` text, and its bucket. */
  linesRef: 'lines_ref',
  linesBucket: 'lines_bucket',
  linesBytes: 'lines_bytes',
  linesSha256: 'lines_sha256',
  /** How many entries (lines) the item holds. */
  count: 'count',
  /** Whether the item's last line ends its append batch. */
  batchEnd: 'batch_end',
  // idempotency records (see idempotency/); `expires_at` is their TTL too
  status: 'status',
  claimId: 'claim_id',
  fingerprint: 'fingerprint',
  inProgressExpiresAt: 'in_progress_expires_at',
  responseStatus: 'response_status',
  responseBody: 'response_body',
  responseRef: 'response_ref',
  // migration markers (see activity-backfill.ts); `claim_id` as above
  /** ISO-8601 time the migration finished: it never runs again. */
  doneAt: 'done_at',
  /** Where an unfinished migration goes on from: the Scan's `LastEvaluatedKey`, as JSON. */
  cursor: 'cursor',
  /** The claim of the run migrating now (epoch ms expiry), renewed with each page. */
  claimExpiresAt: 'claim_expires_at',
  /** How many items the migration has changed so far. */
  migrated: 'migrated',
} as const;
