import type { StepOutcome } from '../conversation/run-step.ts';
import type { NotificationOutcome } from '../observability/metrics.ts';
import type { NotificationResult } from '../webhook/handle-notification.ts';

/** `replyflow_turns_total`'s labels for a step: the bot, and how the step went. */
export function turnLabels(outcome: StepOutcome): { bot: string; outcome: string } {
  const bot = outcome.botId ?? outcome.ended?.botId ?? 'none';
  return { bot, outcome: outcome.error ? 'errored' : outcome.route };
}

/** `replyflow_notifications_total`'s outcome for the webhook's answer. */
export function webhookOutcome(result: NotificationResult): NotificationOutcome {
  if (result.status === 400 || result.status === 500) return 'rejected';
  if (result.status === 503) return 'unavailable';
  return result.duplicate ? 'duplicate' : 'accepted';
}
