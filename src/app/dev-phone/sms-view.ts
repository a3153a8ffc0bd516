import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { SegmentedMessage } from 'sms-segments-calculator';
import type { StoredSms } from '../../emulator/message-store.ts';

/** An SMS as the dev phone shows it: the service's object plus its encoding. */
export interface SmsView {
  id: string;
  from: string;
  to: string;
  body: string;
  status: string;
  statusReason: string;
  parts: number;
  /** `GSM-7` or `UCS-2` (one character outside GSM-7 makes the whole message UCS-2). */
  encoding: string;
  characters: number;
  price: number;
  createdAt: string;
  updatedAt: string;
}

export function toSmsView(sms: StoredSms): SmsView {
  const segmented = new SegmentedMessage(sms.body);
  return {
    id: sms.id,
    from: sms.from,
    to: sms.to,
    body: sms.body,
    status: sms.status,
    statusReason: sms.statusReason,
    parts: sms.parts,
    encoding: segmented.encodingName,
    characters: segmented.numberOfCharacters,
    price: sms.price,
    createdAt: sms.createdAt,
    updatedAt: sms.updatedAt,
  };
}

/** `+33 6 12 34 56 78` for `33612345678`; the digits with a `+` when the number is unknown. */
export function formatPhone(digits: string): string {
  return parsePhoneNumberFromString(`+${digits}`)?.formatInternational() ?? `+${digits}`;
}
