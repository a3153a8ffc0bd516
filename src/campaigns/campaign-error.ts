import { type ErrorCode, errorCodes, ReplyflowError } from '../errors.ts';

/**
 * A campaign request that cannot be done as asked: the campaign does not exist (404), or its
 * state forbids it (409: a cancelled campaign is never resumed, another bot under the same
 * name). The admin API answers `status`; the CLI prints the message and exits 1.
 */
export class CampaignError extends ReplyflowError {
  readonly status: 404 | 409;

  constructor(
    code: Extract<ErrorCode, 'CAMPAIGN_NOT_FOUND' | 'CAMPAIGN_CONFLICT'>,
    message: string,
  ) {
    super(code, message);
    this.status = code === errorCodes.CAMPAIGN_NOT_FOUND ? 404 : 409;
  }
}
