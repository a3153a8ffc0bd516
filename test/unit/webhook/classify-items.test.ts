import { describe, expect, it } from 'vitest';
import type { Notification } from '../../../src/provider/schemas/notification.ts';
import { classifyItems } from '../../../src/webhook/classify-items.ts';
import { normalizeReplyPhone } from '../../../src/webhook/normalize-reply-phone.ts';

function replies(...froms: string[]): Notification {
  return {
    id: 'n1',
    webhookId: 'wh',
    type: 'sms.reply',
    data: froms.map((from) => ({ originSms: { id: 'o1' }, body: 'hi', from, to: '38200' })),
  } as Notification;
}

describe('classifyItems: a reply from any written form of one number', () => {
  it('keys every form of a French mobile to the service form, with the default country', () => {
    const forms = [
      '0033612345678',
      '+33 6 12 34 56 78',
      '0612345678',
      '06.12.34.56.78',
      '33612345678',
      '+33612345678',
    ];
    const { items, rejected } = classifyItems(replies(...forms), 'paris', 1000, 'FR');
    expect(rejected).toEqual([]);
    expect(items.map((item) => item.event.phone)).toEqual(forms.map(() => '33612345678'));
    expect(items.map((item) => item.event.id)).toEqual(forms.map((_, i) => `n1:${i}`));
  });

  it('reads international forms without a default country, but not national ones', () => {
    const { items, rejected } = classifyItems(
      replies('0033612345678', '+33 6 12 34 56 78', '0612345678'),
      'paris',
      1000,
    );
    expect(items.map((item) => item.event.phone)).toEqual(['33612345678', '33612345678']);
    expect(rejected).toEqual([
      {
        index: 2,
        reason:
          "reply: from '061••••678' is not a phone number: a national number (0…) needs the location's defaultCountry",
      },
    ]);
  });

  it('takes a reply from a number that is not a mobile: the person did text us', () => {
    const { items } = classifyItems(
      replies('+33 1 23 45 67 89', '+1 415 555 2671'),
      'paris',
      1,
      'FR',
    );
    expect(items.map((item) => item.event.phone)).toEqual(['33123456789', '14155552671']);
  });

  it('rejects a from that is no phone number, masked in the reason, and keeps the other items', () => {
    const { items, rejected } = classifyItems(
      replies('+33 6 12', '33612345678', 'abc', '9'.repeat(40), '+999 1234 5678'),
      'paris',
      1,
      'FR',
    );
    expect(items.map((item) => item.event.phone)).toEqual(['33612345678']);
    expect(rejected.map((r) => r.index)).toEqual([0, 2, 3, 4]);
    expect(rejected[0]?.reason).toBe("reply: from '•••••' is not a phone number");
    expect(rejected[1]?.reason).toBe('reply: from (no digits) is not a phone number');
    for (const { reason } of rejected) {
      expect(reason).not.toMatch(/\d{4}/);
    }
  });
});

describe('normalizeReplyPhone', () => {
  it('reads the forms people and services write', () => {
    expect(normalizeReplyPhone('tel:+33-6-12-34-56-78', undefined)).toEqual({
      phone: '33612345678',
    });
    expect(normalizeReplyPhone('07 81 23 45 67', 'FR')).toEqual({ phone: '33781234567' });
    expect(normalizeReplyPhone('0470 12 34 56', 'BE')).toEqual({ phone: '32470123456' });
  });
});

describe('classifyItems: text the store could not keep', () => {
  it('refuses an id with a lone surrogate, and replaces lone surrogates in a body', () => {
    const notification = replies('33612345678', '33612345678');
    (notification.data[0] as { originSms: { id: string } }).originSms.id = '\uD800';
    (notification.data[1] as { body: string }).body = 'ok \uDC00 😀';
    const { items, rejected } = classifyItems(notification, 'paris', 1, 'FR');
    expect(rejected).toEqual([
      { index: 0, reason: 'reply: originSms.id: must be well-formed text' },
    ]);
    expect(items[0]?.event).toMatchObject({ body: 'ok \uFFFD 😀' });
  });
});
