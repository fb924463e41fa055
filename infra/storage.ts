/**
 * Where sessions live: the table (keyed as @panto/aws expects, with its stream for the TTL
 * cleanup, ttl-cleanup.ts) and the bucket for exports, archives and messages too big for an
 * item — encrypted, and tiered to cheaper storage by age (PANTO_ARCHIVE_TIER_DAYS).
 */

/**
 * Where exports and archives go (kept until their session is deleted), and where messages
 * too big for a DynamoDB item are offloaded (see @panto/aws).
 */
const EXPORT_PREFIX = 'exports/';
const ARCHIVE_PREFIX = 'archive/';
const OFFLOAD_PREFIX = 'offload/';
/** Offloaded messages move to S3 Intelligent-Tiering after this many days. */
const OFFLOAD_TIERING_DAYS = 30;
/** Exports and archives move to Glacier Instant Retrieval after this many days (PANTO_ARCHIVE_TIER_DAYS). */
const ARCHIVE_TIERING_DAYS = 30;
/** Lifecycle rules that tier exports and archives: never an expiry. */
const ARCHIVE_RULES = ['tier-exports', 'tier-archives'];
/** Idempotent answers too big for an item; their keys live at most 7 days (PANTO_IDEMPOTENCY_TTL_HOURS ≤ 168). */
const IDEMPOTENCY_PREFIX = 'idempotency/';
const IDEMPOTENCY_RETENTION_DAYS = 8;

const archiveTierDays = Number(process.env.PANTO_ARCHIVE_TIER_DAYS || ARCHIVE_TIERING_DAYS);
if (!Number.isInteger(archiveTierDays) || archiveTierDays < 0) throw new Error('PANTO_ARCHIVE_TIER_DAYS must be a whole number of days.');

export const table = new sst.aws.Dynamo('PantoTable', {
  fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string', gsi2pk: 'string', gsi2sk: 'string' },
  primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
  globalIndexes: {
    // What a session list shows, and nothing a turn's prompt or a lease changes: neither writes
    // to the index (BY_OWNER_PROJECTION in @panto/aws; docs/aws.md, "The byOwner index").
    byOwner: {
      hashKey: 'gsi1pk',
      rangeKey: 'gsi1sk',
      projection: ['owner', 'created_at', 'updated_at', 'title', 'active_provider', 'active_model', 'expires_at', 'archived_at', 'listed_count', 'listed_head'],
    },
    // Sparse: sessions whose entries are in the table, by last activity; the archive sweeper's.
    byActivity: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk', projection: 'keys-only' },
  },
  ttl: 'expires_at',
  // Keys are all the TTL cleanup needs: it reads the session id from `pk`, and a session's
  // offloaded messages (`offload/<id>/`) and exports (`exports/<id>/`) are keyed by it alone.
  stream: 'keys-only',
  transform: {
    table: (args: aws.dynamodb.TableArgs) => {
      args.pointInTimeRecovery = { enabled: true };
    },
  },
});

export const bucket = new sst.aws.Bucket('PantoBucket', {
  lifecycle: [
    // Exports and archives are a session's copies in S3, and offloaded messages part of it:
    // they live exactly as long as their session, so no rule expires them by age —
    // deleteSession and the TTL cleanup remove them. These rules only move them to cheaper
    // storage (see transform.lifecycle).
    { id: 'tier-exports', prefix: EXPORT_PREFIX },
    { id: 'tier-archives', prefix: ARCHIVE_PREFIX },
    { id: 'tier-offloads', prefix: OFFLOAD_PREFIX },
    { id: 'expire-idempotency', prefix: IDEMPOTENCY_PREFIX, expiresIn: `${IDEMPOTENCY_RETENTION_DAYS} days` },
  ],
  transform: {
    lifecycle: (args: aws.s3.BucketLifecycleConfigurationArgs) => {
      args.rules = (args.rules as aws.types.input.s3.BucketLifecycleConfigurationRule[]).map((rule) =>
        ARCHIVE_RULES.includes(rule.id as string)
          ? {
              ...rule,
              // Rarely read, read at once when they are (a restore, a download): Glacier IR.
              transitions: [{ days: archiveTierDays, storageClass: 'GLACIER_IR' }],
              abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
            }
          : rule.id === 'tier-offloads'
            ? { ...rule, transitions: [{ days: OFFLOAD_TIERING_DAYS, storageClass: 'INTELLIGENT_TIERING' }] }
            : { ...rule, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } },
      );
    },
  },
});

new aws.s3.BucketServerSideEncryptionConfiguration('PantoBucketEncryption', {
  bucket: bucket.name,
  rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' }, bucketKeyEnabled: true }],
});
