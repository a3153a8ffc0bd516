// The public API of provider/: the typed client of the messaging service, its errors, and the
// phone and sender rules. The root src/index.ts re-exports from here.

// clients
export type { ContactsApi } from './contacts-api.ts';
export {
  createMessagingClients,
  type MessagingLocation,
  type SharedClientOptions,
} from './create-messaging-clients.ts';
export type { GroupsApi } from './groups-api.ts';
export {
  type CustomColumnsApi,
  createMessagingClient,
  type MessagingClient,
  type MessagingClientOptions,
} from './messaging-client.ts';
// phone numbers and senders
export {
  isServiceMobileNumber,
  type NormalizePhoneOptions,
  normalizePhone,
} from './normalize-phone.ts';
// errors
export {
  type BadResponseIssue,
  isTransientProviderError,
  ProviderBadResponseError,
  type ProviderCallContext,
  ProviderError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from './provider-errors.ts';
export type { ProviderLogger, ProviderTimeouts } from './provider-transport.ts';
export type { ProviderWarning } from './provider-warning.ts';
export {
  createRequestLimiter,
  type RequestLimiter,
  type RequestLimiterOptions,
} from './request-limiter.ts';
export type { RetryPolicy } from './retry-transient.ts';
export { checkSender, minSenderLength, sanitizeSender } from './sanitize-sender.ts';
// resource schemas and types, shared with the emulator
export * from './schemas/index.ts';
export type { SendSmsInput, SmsApi } from './sms-api.ts';
export type { EnsureWebhookResult, WebhooksApi } from './webhooks-api.ts';
