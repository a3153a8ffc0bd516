import { describe, expect, it } from 'vitest';
import { errorCodes, ValidationError } from '../../../src/errors.ts';
import { classifySendError } from '../../../src/outbox/sms-gateway.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';

describe('classifySendError', () => {
  it('treats a message the client refuses for a missing parameter (an empty body) as permanent', () => {
    const error = new ValidationError(errorCodes.MISSING_PARAMETER, 'body is missing', 'body');
    expect(classifySendError(error)).toMatchObject({ kind: 'permanent' });
  });

  it('retries a send the store failed before its request (the shared limiter), as one not sent', () => {
    const error = new StoreUnavailableError('Redis did not answer reserveSendSlot (…)');
    expect(classifySendError(error)).toMatchObject({ kind: 'transient', mayHaveBeenSent: false });
  });
});
