// replyflow's public API. The test kit is the separate entry `replyflow/testing`.

/** zod, for a bot's `input` schema, so a bot needs no import but 'replyflow' and 'xstate'. */
export { z } from 'zod';
// Server and engine
export { type AppConfig, type LocationConfig, loadConfig } from './app/config.ts';
export type { RunningReplyflow, StartOptions } from './app/start-replyflow.ts';
export { startReplyflow } from './app/start-replyflow-on-demand.ts';
// Bot authoring
export type {
  BotEvent,
  BotInput,
  ConversationExpireEvent,
  ConversationStartEvent,
  ConversationTrigger,
  SmsReplyEvent,
  SmsStatusEvent,
} from './bot/bot-events.ts';
export type { BotRegistry } from './bot/bot-registry.ts';
export {
  type Bot,
  type BotOptions,
  defineBot,
  type MigrationInput,
  type PersistedBotSnapshot,
} from './bot/define-bot.ts';
export { endConversation } from './bot/end-conversation.ts';
export { matchChoice } from './bot/intents/match-choice.ts';
export { type DateOptions, matchDate } from './bot/intents/match-date.ts';
export { matchNumber, type NumberRange } from './bot/intents/match-number.ts';
export { matchNo, matchYes } from './bot/intents/match-yes-no.ts';
export {
  type IntentGuard,
  type SaidDateOptions,
  saidChoice,
  saidDate,
  saidNo,
  saidNumber,
  saidYes,
} from './bot/intents/said-guards.ts';
export { describeEncoding, lintMessage, type MessageLint } from './bot/lint-message.ts';
export { loadBots } from './bot/load-bots.ts';
export { normalizeKeyword } from './bot/normalize-keyword.ts';
export { type NotifyEmitted, type NotifyPayload, notify } from './bot/notify.ts';
export { durations, parseDuration } from './bot/parse-duration.ts';
export { type RecordEmitted, type RecordFields, record } from './bot/record.ts';
export { reply } from './bot/reply.ts';
export { failedWith, wasDelivered } from './bot/status-guards.ts';
export { type ContactUpdate, updateContact } from './bot/update-contact.ts';
// Compliance (docs/compliance.md)
export { type ComplianceConfig, complianceConfigSchema } from './compliance/compliance-config.ts';
export {
  type ComplianceKind,
  type ComplianceMatch,
  type CompliancePolicy,
  createCompliancePolicy,
  type QuietHours,
} from './compliance/create-compliance-policy.ts';
export { normalizeComplianceText } from './compliance/normalize-compliance-text.ts';
export { quietHoursEnd } from './compliance/quiet-hours-end.ts';
export { createWorker, type Worker, type WorkerOptions } from './conversation/create-worker.ts';
export { startConversation } from './conversation/start-conversation.ts';
// Errors
export {
  ConfigError,
  type ErrorCode,
  errorCodes,
  ReplyflowError,
  ValidationError,
} from './errors.ts';
// Outbound events: what receivers need (docs/integrations.md)
export { newEventSecret } from './events/event-secret.ts';
export type { EventSubscription, OutboundEvent } from './events/outbound-event.ts';
export { type VerifyWebhookOptions, verifyWebhook } from './events/verify-webhook.ts';
export { WebhookVerificationError } from './events/webhook-verification-error.ts';
export { createSender, type SenderOptions } from './outbox/create-sender.ts';
export type { SmsGateway } from './outbox/sms-gateway.ts';
// Messaging service client
export {
  createMessagingClient,
  createMessagingClients,
  type MessagingClient,
  normalizePhone,
  ProviderBadResponseError,
  ProviderError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from './provider/index.ts';

// Ports and drivers
export type { Clock } from './scheduler/clock.ts';
export { createMemoryStore } from './store/memory/create-memory-store.ts';
export { connectRedisCluster } from './store/redis/connect-redis-cluster.ts';
export { createRedisStore } from './store/redis/create-redis-store.ts';
export type { Store } from './store/store.ts';
export { StoreUnavailableError } from './store/store-errors.ts';
export { createWebhookRouter } from './webhook/create-webhook-router.ts';
export { handleNotification } from './webhook/handle-notification.ts';
