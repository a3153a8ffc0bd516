/** Why a delivery was refused by `verifyWebhook`. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'bad_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'bad_signature'
  | 'bad_payload';

/**
 * A delivery that `verifyWebhook` refused: answer it 400 (or 401) and do not act on it. The
 * message says which check failed; `reason` is the same as a stable string.
 */
export class WebhookVerificationError extends Error {
  readonly code = 'WEBHOOK_VERIFICATION_FAILED';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookVerificationError';
  }
}
