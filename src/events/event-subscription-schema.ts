import { isIP } from 'node:net';
import { z } from 'zod';
import { parseDuration } from '../bot/parse-duration.ts';
import { addressClass } from '../provider/address-guard.ts';
import { eventSecretSchema } from './event-secret.ts';
import { eventTypeProblem } from './event-type-problem.ts';
import type { EventSubscription } from './outbound-event.ts';

/** The shortest and longest retry window: queued events have no TTL, so the window bounds them. */
export const retryForBounds = { minMs: 60_000, maxMs: 30 * 86_400_000 } as const;

/** Why `value` is not a retry window (a duration from 1m to 30d), or undefined when it is one. */
export function retryForProblem(value: string): string | undefined {
  const ms = parseDuration(value);
  if (ms !== undefined && ms >= retryForBounds.minMs && ms <= retryForBounds.maxMs) {
    return undefined;
  }
  return `must be a duration from 1m to 30d, such as 24h or 3d (how long a failing delivery is retried before it is a dead letter), not '${value}'`;
}

/** True when `hostname` (a URL's, brackets allowed) names this machine: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** Why `url` cannot receive events, or undefined when it can: https, or http to loopback. */
export function eventUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL such as https://booking.example.com/replyflow';
  }
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return undefined;
  return `must be https (http only to 127.0.0.1, ::1 or localhost): ${parsed.protocol}//${parsed.host} is not`;
}

/** One subscription of a location (`events: [...]` in the config file). */
export const eventSubscriptionSchema = z.object({
  /** Where the events are POSTed: https, or http to loopback. */
  url: z.string().superRefine((url, ctx) => {
    const problem = eventUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  /** `whsec_` + base64 of 24–64 random bytes: echo "whsec_$(openssl rand -base64 32)". */
  secret: eventSecretSchema,
  /** The event types it receives (replyflow's, or a bot's own dotted names); every type when absent. */
  types: z
    .array(
      z
        .string()
        .min(1, { error: 'must be non-empty event types' })
        .superRefine((type, ctx) => {
          const problem = type === '' ? undefined : eventTypeProblem(type);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .min(1, { error: 'must list at least one type, or be left out for every type' })
    .optional(),
  /** Deliver to private, loopback and link-local addresses too (refused otherwise, at send time). */
  allowPrivateAddresses: z.boolean().optional(),
  /**
   * How long a failing delivery to it is retried, from when the event was queued, before it is
   * a dead letter: `24h`, `3d` (1m to 30d). Absent: REPLYFLOW_EVENTS_RETRY_FOR, else 24h.
   */
  retryFor: z
    .string()
    .superRefine((value, ctx) => {
      const problem = retryForProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

/**
 * Why the subscription's deliveries will all be refused at send time, or undefined: its host is
 * `localhost` or a loopback, private or link-local IP, and it does not allow private addresses.
 * Said at start (a name that resolves inside a network can only be known when it is sent).
 */
export function privateDestinationProblem(subscription: EventSubscription): string | undefined {
  if (subscription.allowPrivateAddresses) return undefined;
  let hostname: string;
  try {
    hostname = new URL(subscription.url).hostname;
  } catch {
    // Not a URL: the schema says so, at start, with the field's name.
    return undefined;
  }
  const bare = hostname.replace(/^\[|\]$/g, '');
  const kind = isLoopbackHost(bare) ? 'loopback' : isIP(bare) ? addressClass(bare) : undefined;
  if (!kind) return undefined;
  return `events to ${bare} (a ${kind} address) will be refused when sent: set allowPrivateAddresses: true on the subscription, or REPLYFLOW_EVENTS_ALLOW_PRIVATE=1 (replyflow dev allows it)`;
}
