// The emulator of the messaging service: a product feature (`replyflow emulator`) and the
// ground every integration test stands on. See README.md for the control API.

// starting it
export { createEmulatorApp, type EmulatorApp, type EmulatorDeps } from './create-emulator-app.ts';
// what the control API returns
export type { DeliveryLogEntry, DeliveryOutcome } from './delivery-log.ts';
export type { EmulatorKeyPair, EmulatorOptions, RecipientOutcome } from './emulator-options.ts';
export type { EmulatorEventName } from './event-stream.ts';
export type { StoredSms } from './message-store.ts';
export type { RequestLogEntry } from './request-log.ts';
export type { ReplyResult } from './simulate-reply.ts';
export { type RunningEmulator, startEmulator } from './start-emulator.ts';
