import { describe, expect, it } from 'vitest';
import {
  APPEND_CONDITION,
  APPEND_CONDITION_EMPTY,
  APPEND_CONDITION_LEASE,
  APPEND_UPDATE,
  CREATE_CONDITION,
  DELETE_TOMBSTONE_CONDITION,
  ENTRY_PUT_CONDITION,
  IDEMPOTENCY_CLAIM_CONDITION,
  IDEMPOTENCY_COMPLETE_REF_UPDATE,
  IDEMPOTENCY_COMPLETE_UPDATE,
  IDEMPOTENCY_OWN_CLAIM,
  LEASE_ACQUIRE_CONDITION,
  LEASE_ACQUIRE_UPDATE,
  LEASE_RELEASE_CONDITION,
  LEASE_RELEASE_UPDATE,
  LEASE_RENEW_CONDITION,
  LEASE_RENEW_UPDATE,
  META_OF_OWNER,
  namesFor,
  NOT_EXPIRED_FILTER,
  OWNED_BY,
  QUERY_ENTRIES,
  QUERY_OWNER,
  QUERY_SESSION,
  STOP_REQUEST_CONDITION,
  STOP_REQUEST_UPDATE,
  SESSION_UPDATE_CONDITION,
  SESSION_UPDATE_MODEL,
  SESSION_UPDATE_TITLE,
  TOMBSTONE_CONDITION,
  TOMBSTONE_UPDATE,
} from './expressions.js';
import { ATTR } from './table.js';

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
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND #entry_count = :expected_count AND attribute_not_exists(#head)',
      APPEND_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND #entry_count = :expected_count AND #head = :expected_head',
      APPEND_UPDATE:
        'SET #head = :head, #next_parent = :next_parent, #entry_count = #entry_count + :added, #updated_at = :updated_at, #gsi1sk = :gsi1sk',
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
      STOP_REQUEST_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_exists(#lease_id) AND #lease_expires_at > :now',
      STOP_REQUEST_UPDATE: 'SET #stop_requested = #lease_id',
      TOMBSTONE_CONDITION: 'attribute_exists(#pk) AND #owner = :owner',
      TOMBSTONE_UPDATE:
        'SET #deleted_at = if_not_exists(#deleted_at, :deleted_at), #expires_at = :expires_at REMOVE #gsi1pk, #gsi1sk',
      DELETE_TOMBSTONE_CONDITION: 'attribute_exists(#deleted_at)',
      QUERY_SESSION: '#pk = :pk',
      QUERY_ENTRIES: '#pk = :pk AND begins_with(#sk, :entry_prefix)',
      QUERY_OWNER: '#gsi1pk = :gsi1pk',
      NOT_EXPIRED_FILTER: 'attribute_not_exists(#expires_at) OR #expires_at > :now_seconds',
      SESSION_UPDATE_CONDITION:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#expires_at) OR #expires_at > :now_seconds)',
      SESSION_UPDATE_TITLE: '#title = :title',
      SESSION_UPDATE_MODEL: '#active_provider = :active_provider, #active_model = :active_model',
      IDEMPOTENCY_CLAIM_CONDITION:
        'attribute_not_exists(#pk) OR #expires_at < :now_seconds OR (#status = :in_progress AND #in_progress_expires_at < :now)',
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
      '#entry_count': 'entry_count',
      '#head': 'head',
    });
  });
});
