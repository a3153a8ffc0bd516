import { ConfigError } from '../errors.ts';
import type { EventSubscription } from '../events/outbound-event.ts';

export interface EventsEnv {
  REPLYFLOW_EVENTS_URL?: string;
  REPLYFLOW_EVENTS_SECRET?: string;
  REPLYFLOW_EVENTS_ALLOW_PRIVATE?: boolean;
  REPLYFLOW_EVENTS_RETRY_FOR?: string;
}

/**
 * The single location's subscription from REPLYFLOW_EVENTS_URL and REPLYFLOW_EVENTS_SECRET
 * (every type; its retry window REPLYFLOW_EVENTS_RETRY_FOR), each already checked by the env
 * schema; undefined when neither is set.
 */
export function eventsFromEnv(vars: EventsEnv): EventSubscription[] | undefined {
  const url = vars.REPLYFLOW_EVENTS_URL;
  const secret = vars.REPLYFLOW_EVENTS_SECRET;
  if (!url && !secret) return undefined;
  if (!secret) {
    throw new ConfigError(
      'invalid configuration:\n  - REPLYFLOW_EVENTS_SECRET is required with REPLYFLOW_EVENTS_URL: make one with: echo "whsec_$(openssl rand -base64 32)"',
    );
  }
  if (!url) {
    throw new ConfigError(
      'invalid configuration:\n  - REPLYFLOW_EVENTS_URL is required with REPLYFLOW_EVENTS_SECRET: the https URL that receives the events',
    );
  }
  return [
    {
      url,
      secret,
      ...(vars.REPLYFLOW_EVENTS_ALLOW_PRIVATE && { allowPrivateAddresses: true }),
      ...(vars.REPLYFLOW_EVENTS_RETRY_FOR && { retryFor: vars.REPLYFLOW_EVENTS_RETRY_FOR }),
    },
  ];
}
