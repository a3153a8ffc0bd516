import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { toStoreError } from '../../../src/store/redis/to-store-error.ts';
import { StoreRefusedError, StoreUnavailableError } from '../../../src/store/store-errors.ts';

describe('toStoreError', () => {
  it('calls the store unavailable only when it failed or cannot take writes now', () => {
    for (const reply of [
      'OOM command not allowed',
      'READONLY You can',
      'LOADING Redis is loading',
    ]) {
      expect(toStoreError(new ReplyError(reply), 'ingest')).toBeInstanceOf(StoreUnavailableError);
    }
    expect(toStoreError(new Error('connect ECONNREFUSED'), 'ingest')).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('calls a script error a refusal, which a retry would meet again: never an outage', () => {
    const error = toStoreError(
      new ReplyError('ERR user_script:1: Expected value but found invalid unicode escape code'),
      'ingest',
    );
    expect(error).toBeInstanceOf(StoreRefusedError);
    expect(error.code).toBe('STORE_REFUSED');
    expect(error.message).toMatch(/Redis refused ingest/);
  });
});
