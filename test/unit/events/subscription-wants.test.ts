import { describe, expect, it } from 'vitest';
import { subscriptionWants } from '../../../src/events/subscription-wants.ts';

describe('subscriptionWants', () => {
  const base = { url: 'https://crm.example.com/hook', secret: 'whsec_x' };

  it('takes every type when the subscription lists none, and only the listed ones otherwise', () => {
    expect(subscriptionWants(base, 'appointment.rescheduled')).toBe(true);
    const some = { ...base, types: ['optout', 'conversation.ended'] };
    expect(subscriptionWants(some, 'optout')).toBe(true);
    expect(subscriptionWants(some, 'optin')).toBe(false);
  });
});
