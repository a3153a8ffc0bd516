// replyflow/testing: the kit for testing bots.

export { createBotRegistry } from '../bot/bot-registry.ts';
export { runStep, type StepInput, type StepOutcome } from '../conversation/run-step.ts';
export { statePath } from '../conversation/state-path.ts';
export { type EmulatorOptions, type RunningEmulator, startEmulator } from '../emulator/index.ts';
export { createManualClock, type ManualClock } from '../scheduler/create-manual-clock.ts';
export { createMemoryStore } from '../store/memory/create-memory-store.ts';
// the test harness: the real engine on the memory store, the emulator and a manual clock
export type { ConversationResult } from '../store/records.ts';
export { createTestHarness } from './create-test-harness.ts';
// transcripts: plain-text conversations, run by `replyflow test` and `runTranscript`
export { findTranscripts } from './find-transcripts.ts';
export {
  type ExpectedText,
  parseTranscript,
  type Transcript,
  type TranscriptStep,
  TranscriptSyntaxError,
} from './parse-transcript.ts';
export {
  playTranscript,
  type TranscriptFailure,
  type TranscriptOutcome,
} from './play-transcript.ts';
export {
  playTranscriptFile,
  type RunTranscriptOptions,
  runTranscript,
  TranscriptFailedError,
} from './run-transcript.ts';
export type { TestHarness, TestHarnessOptions } from './test-harness.ts';
export type { TestMessage, TestPhone } from './test-phone.ts';
