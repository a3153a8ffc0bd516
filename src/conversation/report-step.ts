import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { ConversationKey } from '../store/records.ts';
import type { StepOutcome } from './run-step.ts';

/**
 * Logs what a step did that someone should see (a run ended, a bot threw, actions the engine
 * does not run) and, at debug, every step, with the conversation's context (phone masked).
 */
export function reportStep(
  logger: Logger,
  key: ConversationKey,
  eventId: string,
  kind: string,
  outcome: StepOutcome,
): void {
  // Most steps log nothing at the usual levels: no child logger (nor masked phone) for them.
  const quiet = !outcome.ended && !outcome.error && outcome.ignoredActions.length === 0;
  if (quiet && !logger.isLevelEnabled('debug')) return;
  const log = logger.child({
    location: key.location,
    conversation: maskPhone(key.phone),
    bot: outcome.botId ?? outcome.ended?.botId,
  });
  if (outcome.ended) {
    log.warn(
      { code: outcome.ended.code, detail: outcome.ended.detail, event: eventId },
      'conversation ended: it cannot resume',
    );
  }
  if (outcome.error) {
    log.error(
      { err: outcome.error, event: eventId, kind, code: 'BOT_THREW' },
      'bot threw; conversation marked errored',
    );
  } else {
    log.debug({ event: eventId, kind, route: outcome.route, reason: outcome.reason }, 'step');
  }
  if (outcome.ignoredActions.length > 0) {
    log.warn(
      { actions: outcome.ignoredActions },
      'custom actions are not run by the engine; use reply() and endConversation()',
    );
  }
}
