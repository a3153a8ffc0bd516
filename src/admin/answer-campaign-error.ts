import type { Response } from 'express';
import { CampaignError } from '../campaigns/campaign-error.ts';
import { ConfigError, ValidationError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';

/**
 * Answers the errors a campaign request may meet: 400 for a bad option (naming its field) or a
 * file that cannot be read as a recipient list, the campaign's own 404 or 409, 503 when the
 * store is down. Anything else is thrown on, to the app's 500.
 */
export function answerCampaignError(
  res: Response,
  error: unknown,
  logger: Logger,
  doing: string,
): void {
  if (error instanceof StoreUnavailableError) {
    logger.error({ err: error }, `admin campaigns: ${doing}: store unavailable`);
    // An import cut short is safe to send again: the same rows are unchanged, none is doubled.
    res.status(503).json({ error: 'store unavailable, retry later' });
    return;
  }
  if (error instanceof ValidationError) {
    res.status(400).json({ error: error.message, ...(error.field && { field: error.field }) });
    return;
  }
  if (error instanceof ConfigError) {
    res.status(400).json({ error: error.message });
    return;
  }
  if (error instanceof CampaignError) {
    res.status(error.status).json({ error: error.message, code: error.code });
    return;
  }
  throw error;
}
