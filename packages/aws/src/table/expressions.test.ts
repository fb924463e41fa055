import { describe, expect, it } from 'vitest';
import { ATTR } from './attributes.js';
import {
  ACTIVITY_BACKFILL_CONDITION,
  ACTIVITY_BACKFILL_FILTER,
  ACTIVITY_BACKFILL_UPDATE,
  MIGRATION_CLAIM_CONDITION,
  MIGRATION_CLAIM_UPDATE,
  MIGRATION_DONE_UPDATE,
  MIGRATION_HELD_CONDITION,
  MIGRATION_PAGE_UPDATE,
  MIGRATION_RELEASE_UPDATE,
  APPEND_CONDITION,
  APPEND_CONDITION_EMPTY,
  APPEND_CONDITION_LEASE,
  APPEND_UPDATE,
  ARCHIVE_CLAIM_CONDITION,
  ARCHIVE_CLAIM_UPDATE,
  ARCHIVE_CONDITION,
  ARCHIVE_CONDITION_EMPTY,
  ARCHIVE_CONDITION_INCARNATION,
  ARCHIVE_FINISH_UPDATE,
  ARCHIVE_UPDATE,
  ARCHIVE_UPDATE_HEAD,
  CLAIM_HELD_CONDITION,
  CLAIM_RELEASE_UPDATE,
  CLAIM_RENEW_UPDATE,
  CREATE_CONDITION,
  DELETE_TOMBSTONE_CONDITION,
  ENTRY_PUT_CONDITION,
  HOT_META_OF_OWNER,
  IDEMPOTENCY_CLAIM_CONDITION,
  IDEMPOTENCY_COMPLETE_REF_UPDATE,
  IDEMPOTENCY_COMPLETE_UPDATE,
  IDEMPOTENCY_OWN_CLAIM,
  LEASE_ACQUIRE_CONDITION,
  LEASE_ACQUIRE_UPDATE,
  LEASE_RELEASE_CONDITION,
  LEASE_RELEASE_TOUCH_CONDITION,
  LEASE_RELEASE_TOUCH_UPDATE,
  LEASE_RELEASE_UPDATE,
  LEASE_RENEW_CONDITION,
  LEASE_RENEW_UPDATE,
  META_OF_OWNER,
  namesFor,
  NOT_EXPIRED_FILTER,
  OWNED_BY,
  QUERY_COLD,
  QUERY_ENTRIES,
  QUERY_OWNER,
  QUERY_SESSION,
  STOP_REQUEST_CONDITION,
  STOP_REQUEST_UPDATE,
  SESSION_UPDATE_CONDITION,
  SESSION_UPDATE_IF_TITLE,
  SESSION_UPDATE_MODEL,
  SESSION_UPDATE_TITLE,
  RESTORE_FINISH_UPDATE,
  TOMBSTONE_CONDITION,
  TOMBSTONE_UPDATE,
} from './expressions.js';

describe('expressions', () => {
  it('spells every condition, update and key expression exactly', () => {
    expect({
      OWNED_BY,
      META_OF_OWNER,
      CREATE_CONDITION,
      APPEND_CONDITION_EMPTY,
      APPEND_CONDITION,
      APPEND_UPDATE,
      APPEND_CONDITION_LEASE,
      ENTRY_PUT_CONDITION,
      LEASE_ACQUIRE_CONDITION,
      LEASE_ACQUIRE_UPDATE,
      LEASE_RENEW_CONDITION,
      LEASE_RENEW_UPDATE,
      LEASE_RELEASE_CONDITION,
      LEASE_RELEASE_UPDATE,
      LEASE_RELEASE_TOUCH_CONDITION,
      LEASE_RELEASE_TOUCH_UPDATE,
      STOP_REQUEST_CONDITION,
      STOP_REQUEST_UPDATE,
      TOMBSTONE_CONDITION,
      TOMBSTONE_UPDATE,
      DELETE_TOMBSTONE_CONDITION,
      QUERY_SESSION,
      QUERY_ENTRIES,
      QUERY_OWNER,
      NOT_EXPIRED_FILTER,
      SESSION_UPDATE_CONDITION,
      SESSION_UPDATE_TITLE,
      SESSION_UPDATE_IF_TITLE,
      SESSION_UPDATE_MODEL,
      IDEMPOTENCY_CLAIM_CONDITION,
      IDEMPOTENCY_OWN_CLAIM,
      IDEMPOTENCY_COMPLETE_UPDATE,
      IDEMPOTENCY_COMPLETE_REF_UPDATE,
    }).toEqual({
      OWNED_BY: 'attribute_exists(#pk) AND #owner = :owner',
      META_OF_OWNER: 'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at)',
      CREATE_CONDITION: 'attribute_not_exists(#pk)',
      APPEND_CONDITION_EMPTY:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND attribute_not_exists(#head)',
      APPEND_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND #head = :expected_head',
      APPEND_UPDATE:
        'SET #head = :head, #next_parent = :next_parent, #entry_count = #entry_count + :added, #listed_count = #entry_count + :added, #listed_head = :head, ' +
        '#updated_at = :updated_at, #gsi1sk = :gsi1sk, #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk',
      APPEND_CONDITION_LEASE: ' AND #lease_id = :lease_id',
      ENTRY_PUT_CONDITION: 'attribute_not_exists(#pk)',
      LEASE_ACQUIRE_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)',
      LEASE_ACQUIRE_UPDATE:
        'SET #lease_id = :lease_id, #lease_expires_at = :lease_expires_at, #lease_started_at = :now, #lease_entry_count = #entry_count REMOVE #stop_requested',
      LEASE_RENEW_CONDITION: '#lease_id = :lease_id AND attribute_not_exists(#deleted_at)',
      LEASE_RENEW_UPDATE: 'SET #lease_expires_at = :lease_expires_at',
      LEASE_RELEASE_CONDITION: '#lease_id = :lease_id',
      LEASE_RELEASE_UPDATE: 'REMOVE #lease_id, #lease_expires_at, #lease_started_at, #lease_entry_count, #stop_requested',
      LEASE_RELEASE_TOUCH_CONDITION: '#lease_id = :lease_id AND attribute_not_exists(#deleted_at)',
      LEASE_RELEASE_TOUCH_UPDATE:
        'SET #listed_count = #entry_count, #listed_head = #head, #updated_at = :updated_at, #gsi1sk = :gsi1sk, #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk ' +
        'REMOVE #lease_id, #lease_expires_at, #lease_started_at, #lease_entry_count, #stop_requested',
      STOP_REQUEST_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_exists(#lease_id) AND #lease_expires_at > :now',
      STOP_REQUEST_UPDATE: 'SET #stop_requested = #lease_id',
      TOMBSTONE_CONDITION: 'attribute_exists(#pk) AND #owner = :owner',
      TOMBSTONE_UPDATE: 'SET #deleted_at = if_not_exists(#deleted_at, :deleted_at), #expires_at = :expires_at REMOVE #gsi1pk, #gsi1sk, #gsi2pk, #gsi2sk',
      DELETE_TOMBSTONE_CONDITION: 'attribute_exists(#deleted_at)',
      QUERY_SESSION: '#pk = :pk',
      QUERY_ENTRIES: '#pk = :pk AND begins_with(#sk, :entry_prefix)',
      QUERY_OWNER: '#gsi1pk = :gsi1pk',
      NOT_EXPIRED_FILTER: 'attribute_not_exists(#expires_at) OR #expires_at > :now_seconds',
      SESSION_UPDATE_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#expires_at) OR #expires_at > :now_seconds)',
      SESSION_UPDATE_TITLE: '#title = :title',
      SESSION_UPDATE_IF_TITLE: ' AND #title = :if_title',
      SESSION_UPDATE_MODEL: '#active_provider = :active_provider, #active_model = :active_model',
      IDEMPOTENCY_CLAIM_CONDITION: 'attribute_not_exists(#pk) OR #expires_at < :now_seconds OR (#status = :in_progress AND #in_progress_expires_at < :now)',
      IDEMPOTENCY_OWN_CLAIM: '#status = :in_progress AND #claim_id = :claim_id',
      IDEMPOTENCY_COMPLETE_UPDATE:
        'SET #status = :completed, #response_status = :response_status, #response_body = :response_body, #expires_at = :expires_at REMOVE #in_progress_expires_at',
      IDEMPOTENCY_COMPLETE_REF_UPDATE:
        'SET #status = :completed, #response_status = :response_status, #response_ref = :response_ref, #expires_at = :expires_at REMOVE #in_progress_expires_at',
    });
  });

  it('names only attributes of the table layout', () => {
    const attributes = new Set<string>(Object.values(ATTR));
    const all = [
      APPEND_CONDITION,
      APPEND_UPDATE,
      APPEND_CONDITION_LEASE,
      LEASE_ACQUIRE_CONDITION,
      LEASE_ACQUIRE_UPDATE,
      LEASE_RENEW_CONDITION,
      LEASE_RENEW_UPDATE,
      LEASE_RELEASE_UPDATE,
      LEASE_RELEASE_TOUCH_CONDITION,
      LEASE_RELEASE_TOUCH_UPDATE,
      STOP_REQUEST_CONDITION,
      STOP_REQUEST_UPDATE,
      TOMBSTONE_CONDITION,
      TOMBSTONE_UPDATE,
      DELETE_TOMBSTONE_CONDITION,
      QUERY_ENTRIES,
      QUERY_OWNER,
      NOT_EXPIRED_FILTER,
      SESSION_UPDATE_CONDITION,
      SESSION_UPDATE_TITLE,
      SESSION_UPDATE_IF_TITLE,
      SESSION_UPDATE_MODEL,
      IDEMPOTENCY_CLAIM_CONDITION,
      IDEMPOTENCY_OWN_CLAIM,
      IDEMPOTENCY_COMPLETE_UPDATE,
      IDEMPOTENCY_COMPLETE_REF_UPDATE,
    ];
    for (const name of Object.values(namesFor(...all))) expect(attributes).toContain(name);
  });

  it('derives ExpressionAttributeNames from the placeholders, each once', () => {
    expect(namesFor(APPEND_CONDITION, 'SET #head = :x')).toEqual({
      '#pk': 'pk',
      '#owner': 'owner',
      '#deleted_at': 'deleted_at',
      '#archived_at': 'archived_at',
      '#entry_count': 'entry_count',
      '#head': 'head',
    });
  });

  it('spells every archival expression exactly, naming only attributes of the table layout', () => {
    const archival = {
      HOT_META_OF_OWNER,
      QUERY_COLD,
      ARCHIVE_CONDITION,
      ARCHIVE_CONDITION_EMPTY,
      ARCHIVE_CONDITION_INCARNATION,
      ARCHIVE_UPDATE,
      ARCHIVE_UPDATE_HEAD,
      ARCHIVE_CLAIM_CONDITION,
      ARCHIVE_CLAIM_UPDATE,
      CLAIM_HELD_CONDITION,
      CLAIM_RENEW_UPDATE,
      CLAIM_RELEASE_UPDATE,
      ARCHIVE_FINISH_UPDATE,
      RESTORE_FINISH_UPDATE,
      ACTIVITY_BACKFILL_FILTER,
      ACTIVITY_BACKFILL_CONDITION,
      ACTIVITY_BACKFILL_UPDATE,
    };
    expect(archival).toEqual({
      HOT_META_OF_OWNER: 'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at)',
      QUERY_COLD: '#gsi2pk = :gsi2pk AND #gsi2sk < :cutoff',
      ARCHIVE_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND #head = :expected_head AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)',
      ARCHIVE_CONDITION_EMPTY:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND attribute_not_exists(#head) AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)',
      ARCHIVE_CONDITION_INCARNATION: ' AND #incarnation = :incarnation',
      ARCHIVE_UPDATE:
        'SET #archived_at = :archived_at, #archive_bucket = :archive_bucket, #archive_key = :archive_key, #archive_bytes = :archive_bytes, #archive_sha256 = :archive_sha256, #archive_entry_count = :expected_count, #archive_claim_id = :claim_id, #archive_claim_expires_at = :claim_expires_at',
      ARCHIVE_UPDATE_HEAD: ', #archive_head = :expected_head',
      ARCHIVE_CLAIM_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_exists(#archived_at) AND (attribute_not_exists(#archive_claim_id) OR #archive_claim_expires_at <= :now)',
      ARCHIVE_CLAIM_UPDATE: 'SET #archive_claim_id = :claim_id, #archive_claim_expires_at = :claim_expires_at',
      CLAIM_HELD_CONDITION: '#archive_claim_id = :claim_id AND attribute_not_exists(#deleted_at)',
      CLAIM_RENEW_UPDATE: 'SET #archive_claim_expires_at = :claim_expires_at',
      CLAIM_RELEASE_UPDATE: 'REMOVE #archive_claim_id, #archive_claim_expires_at',
      ARCHIVE_FINISH_UPDATE: 'REMOVE #gsi2pk, #gsi2sk, #archive_claim_id, #archive_claim_expires_at',
      RESTORE_FINISH_UPDATE:
        'SET #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk, #restored_at = :restored_at REMOVE #archived_at, #archive_claim_id, #archive_claim_expires_at',
      ACTIVITY_BACKFILL_FILTER: '#sk = :meta_sk AND attribute_not_exists(#gsi2pk) AND attribute_not_exists(#archived_at) AND attribute_not_exists(#deleted_at)',
      ACTIVITY_BACKFILL_CONDITION:
        'attribute_exists(#pk) AND attribute_not_exists(#gsi2pk) AND attribute_not_exists(#archived_at) AND attribute_not_exists(#deleted_at)',
      ACTIVITY_BACKFILL_UPDATE: 'SET #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk',
    });
    const attributes = new Set<string>(Object.values(ATTR));
    for (const name of Object.values(namesFor(...Object.values(archival)))) expect(attributes).toContain(name);
  });

  it('runs a one-time migration under a claim that lapses, moving its cursor on page by page, done for good at the end', () => {
    const migration = {
      MIGRATION_CLAIM_CONDITION,
      MIGRATION_CLAIM_UPDATE,
      MIGRATION_HELD_CONDITION,
      MIGRATION_PAGE_UPDATE,
      MIGRATION_DONE_UPDATE,
      MIGRATION_RELEASE_UPDATE,
    };
    expect(migration).toEqual({
      MIGRATION_CLAIM_CONDITION: 'attribute_not_exists(#done_at) AND (attribute_not_exists(#claim_id) OR #claim_expires_at <= :now)',
      MIGRATION_CLAIM_UPDATE: 'SET #claim_id = :claim_id, #claim_expires_at = :claim_expires_at',
      MIGRATION_HELD_CONDITION: '#claim_id = :claim_id',
      MIGRATION_PAGE_UPDATE: 'SET #cursor = :cursor, #claim_expires_at = :claim_expires_at ADD #migrated :migrated',
      MIGRATION_DONE_UPDATE: 'SET #done_at = :done_at ADD #migrated :migrated REMOVE #cursor, #claim_id, #claim_expires_at',
      MIGRATION_RELEASE_UPDATE: 'REMOVE #claim_id, #claim_expires_at',
    });
    const attributes = new Set<string>(Object.values(ATTR));
    for (const name of Object.values(namesFor(...Object.values(migration)))) expect(attributes).toContain(name);
  });
});
