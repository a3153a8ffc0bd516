import type { CountryCode } from 'libphonenumber-js/max';
import { errorCodes, ValidationError } from '../errors.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from './normalize-phone.ts';
import type { ProviderCall, ProviderLogger, ProviderTransport } from './provider-transport.ts';
import type { WarningSink } from './provider-warning.ts';
import { checkSender } from './sanitize-sender.ts';
import { type SendSmsRequest, type Sms, smsSchema } from './schemas/sms.ts';

/** What a caller gives `sms.send`; everything but `to` and `body` has the spec's default. */
export interface SendSmsInput {
  /** The recipient as people write it (`+33 6 12 34 56 78`, or `06 12 34 56 78` with a default country). */
  to: string;
  body: string;
  /** Sender name; empty (the default) selects the short code, the only sender recipients can reply to. */
  from?: string;
  /** Default false. */
  shortenUrls?: boolean;
  /** Default false. */
  isTransactional?: boolean;
}

export interface SendSmsOptions {
  /**
   * Runs once the request has its rate-limit slot, immediately before `POST /sms` goes out; a
   * rejection stops the send (its error is the call's). The sender checks the opt-out there.
   */
  beforeRequest?: () => Promise<void>;
  /**
   * A message the bot sent on its own (a campaign's, a timer's): it waits for its rate-limit
   * slot behind answers to people (`ProviderCall.bulk`).
   */
  bulk?: boolean;
}

export interface SmsApi {
  /**
   * Sends one SMS (`POST /sms`). `to` is normalized and must be a mobile number, and `from` is
   * checked, before anything is sent. Never retried: on failure, the error's
   * `mayHaveReachedService` tells whether a retry could send a duplicate.
   *
   * @example
   * const sms = await client.sms.send({ to: '+33 6 12 34 56 78', body: 'Your table is ready' });
   * sms.id; // keep it: status notifications refer to it
   */
  send(input: SendSmsInput, options?: SendSmsOptions): Promise<Sms>;
  /**
   * Reads an SMS and its current status (`GET /sms/{id}`), retried on transient failures.
   *
   * @example
   * const { status, statusReason } = await client.sms.get('sms_1a2b3c');
   */
  get(id: string): Promise<Sms>;
}

export interface SmsApiDeps {
  location: string;
  transport: ProviderTransport;
  idempotent<T>(call: ProviderCall<T>): Promise<T>;
  defaultCountry: CountryCode | undefined;
  warn: WarningSink;
  logger: ProviderLogger | undefined;
}

export function createSmsApi(deps: SmsApiDeps): SmsApi {
  return {
    async send(input, options) {
      // The service fails POST /sms with missing parameters; nothing is sent for it.
      if (typeof input.body !== 'string' || input.body === '') {
        throw new ValidationError(
          errorCodes.MISSING_PARAMETER,
          'sms.send: body is missing: POST /sms needs the text of the message (a non-empty body)',
          'body',
        );
      }
      const to = normalizePhone(input.to, { defaultCountry: deps.defaultCountry });
      const from = checkSender(input.from ?? '');
      if (from !== (input.from ?? '')) {
        deps.warn({
          code: 'SENDER_SANITIZED',
          location: deps.location,
          field: 'from',
          message: `from '${input.from}' is sent as '${from}': the service removes characters other than letters, digits and spaces`,
        });
      }
      const request: SendSmsRequest = {
        from,
        to,
        body: input.body,
        shortenUrls: input.shortenUrls ?? false,
        isTransactional: input.isTransactional ?? false,
      };
      const sms = await deps.transport.request({
        method: 'POST',
        path: '/sms',
        body: request,
        schema: smsSchema,
        beforeRequest: options?.beforeRequest,
        ...(options?.bulk && { bulk: true }),
      });
      deps.logger?.debug(
        { location: deps.location, to: maskPhone(to), smsId: sms.id },
        'sms accepted by the messaging service',
      );
      return sms;
    },
    get(id) {
      return deps.idempotent({
        method: 'GET',
        path: `/sms/${encodeURIComponent(id)}`,
        schema: smsSchema,
      });
    },
  };
}
