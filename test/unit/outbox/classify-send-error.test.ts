import { describe, expect, it } from 'vitest';
import { errorCodes, ValidationError } from '../../../src/errors.ts';
import { classifySendError } from '../../../src/outbox/sms-gateway.ts';

describe('classifySendError', () => {
  it('treats a message the client refuses for a missing parameter (an empty body) as permanent', () => {
    const error = new ValidationError(errorCodes.MISSING_PARAMETER, 'body is missing', 'body');
    expect(classifySendError(error)).toMatchObject({ kind: 'permanent' });
  });
});
