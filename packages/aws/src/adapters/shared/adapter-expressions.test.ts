import { describe, expect, it } from 'vitest';
import { namesFor } from '../../table/expressions.js';
import {
  CHECKPOINT_CONTINUES_CONDITION,
  CHECKPOINT_HEAD_UPDATE,
  LOG_APPEND_CONDITION,
  LOG_APPEND_CONDITION_NEW,
  LOG_APPEND_UPDATE,
  LOG_CLEAR_UNLIST_UPDATE,
  LOG_POP_CONDITION,
  LOG_REMOVE_CONDITION,
} from './adapter-expressions.js';

describe('adapter expressions', () => {
  it('guards an append by the count the handle saw, and a first append by the head being absent', () => {
    expect(LOG_APPEND_CONDITION).toBe('#entry_count = :expected_count');
    expect(LOG_APPEND_CONDITION_NEW).toBe('attribute_not_exists(#pk)');
    expect(LOG_APPEND_UPDATE).toBe(
      'SET #entry_count = :entry_count, #live_from = if_not_exists(#live_from, :zero), #created_at = if_not_exists(#created_at, :now), #updated_at = :now',
    );
  });

  it('pops only a log that is still as read, and deletes a head only while the log is still empty', () => {
    expect(LOG_POP_CONDITION).toBe('#entry_count = :expected_count AND #live_from = :live_from');
    expect(LOG_REMOVE_CONDITION).toBe('#entry_count = :entry_count AND #live_from = :entry_count');
    expect(LOG_CLEAR_UNLIST_UPDATE).toBe('SET #live_from = #entry_count, #updated_at = :now REMOVE #last_batch, #gsi1pk, #gsi1sk');
  });

  it('continues a checkpoint line only from its head (or repeats the same put)', () => {
    expect(CHECKPOINT_CONTINUES_CONDITION).toBe('#head = :parent OR #head = :head');
    expect(CHECKPOINT_HEAD_UPDATE).toBe('SET #head = :head, #gsi1pk = :gsi1pk, #gsi1sk = :gsi1sk');
    expect(namesFor(CHECKPOINT_HEAD_UPDATE)).toEqual({ '#head': 'head', '#gsi1pk': 'gsi1pk', '#gsi1sk': 'gsi1sk' });
  });
});
