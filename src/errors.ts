/**
 * The one catalogue of replyflow error codes (in the spirit of Fastify's `lib/errors.js`).
 * Every error replyflow throws carries one of these stable codes, a `cause` when it wraps
 * another failure, and a message that tells the operator what to do next.
 */
export const errorCodes = {
  // configuration (app/)
  CONFIG_INVALID: 'CONFIG_INVALID',
  // the messaging service said no (provider/)
  PROVIDER_REJECTED: 'PROVIDER_REJECTED',
  PROVIDER_UNAUTHORIZED: 'PROVIDER_UNAUTHORIZED',
  PROVIDER_RATE_LIMITED: 'PROVIDER_RATE_LIMITED',
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  PROVIDER_BAD_RESPONSE: 'PROVIDER_BAD_RESPONSE',
  // input refused locally before any request (provider/)
  INVALID_PHONE_NUMBER: 'INVALID_PHONE_NUMBER',
  NOT_A_MOBILE_NUMBER: 'NOT_A_MOBILE_NUMBER',
  INVALID_SENDER: 'INVALID_SENDER',
  INVALID_CONTACT: 'INVALID_CONTACT',
  INVALID_GROUP: 'INVALID_GROUP',
  INVALID_WEBHOOK: 'INVALID_WEBHOOK',
  MISSING_PARAMETER: 'MISSING_PARAMETER',
  // a destination refused before connecting: loopback, private or link-local (provider/address-guard)
  ADDRESS_BLOCKED: 'ADDRESS_BLOCKED',
  // bots (bot/, conversation/)
  BOT_DEFINITION_INVALID: 'BOT_DEFINITION_INVALID',
  BOT_THREW: 'BOT_THREW',
  // storage (store/)
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  STORE_REFUSED: 'STORE_REFUSED',
  STORE_CONFLICT: 'STORE_CONFLICT',
  // input that cannot be stored or parsed safely (any role)
  INPUT_INVALID: 'INPUT_INVALID',
  // campaigns (campaigns/)
  CAMPAIGN_NOT_FOUND: 'CAMPAIGN_NOT_FOUND',
  CAMPAIGN_CONFLICT: 'CAMPAIGN_CONFLICT',
} as const;

export type ErrorCode = (typeof errorCodes)[keyof typeof errorCodes];

/** Base class of every error replyflow throws on purpose. */
export class ReplyflowError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The configuration (env or config file) cannot be used; the message names the variable. */
export class ConfigError extends ReplyflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(errorCodes.CONFIG_INVALID, message, options);
  }
}

/** Input was refused locally, before any request went out (phone number, sender, contact). */
export class ValidationError extends ReplyflowError {
  /** The path of the offending field, when there is one (`to`, `contact.12`). */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(code, message);
    this.field = field;
  }
}
