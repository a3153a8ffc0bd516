import type { StepOutcome } from '../conversation/run-step.ts';
import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { Claim } from '../store/store.ts';
import { formatStateValue } from './format-state-value.ts';

/**
 * The worker's `onStep` that logs each turn at `info`: the bot, the state before and after,
 * and the masked phone; a compliance keyword (STOP, HELP…), which no bot sees, says which. A
 * delivery report that moves no state, and an event no bot takes, are logged at `debug` only:
 * each message sent brings two reports.
 */
export function logTurn(logger: Logger): (outcome: StepOutcome, claim: Claim) => void {
  return (outcome, claim) => {
    if (outcome.route === 'compliance') {
      // STOP, START, HELP…: answered before any bot; an opt-out ends the conversation.
      logger.info(
        {
          location: claim.location,
          bot: outcome.botId,
          conversation: maskPhone(claim.phone),
          compliance: outcome.reason,
          ended: outcome.ended?.code,
        },
        `compliance: ${outcome.reason}${outcome.ended ? ` (${outcome.ended.botId} ended: ${outcome.ended.code})` : ''}`,
      );
      return;
    }
    if (!outcome.botId) {
      if (logger.isLevelEnabled('debug')) {
        logger.debug(
          {
            location: claim.location,
            conversation: maskPhone(claim.phone),
            reason: outcome.reason,
          },
          'event taken by no bot',
        );
      }
      return;
    }
    // Most turns of a busy process log nothing (LOG_LEVEL warn): no formatting for them.
    if (!logger.isLevelEnabled('debug') && !logger.isLevelEnabled('info')) return;
    const from = formatStateValue(outcome.stateBefore, '(start)');
    const to = formatStateValue(
      outcome.stateAfter,
      outcome.error === undefined ? '(none)' : '(errored)',
    );
    const quiet = outcome.reason === 'status' && from === to;
    const level = quiet ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        location: claim.location,
        bot: outcome.botId,
        conversation: maskPhone(claim.phone),
        route: outcome.reason,
        from,
        to,
      },
      `${outcome.botId}: ${from} → ${to}`,
    );
  };
}
