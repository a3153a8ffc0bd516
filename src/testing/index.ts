// replyflow/testing: the kit for testing bots.

export { createBotRegistry } from '../bot/bot-registry.ts';
export { runStep, type StepInput, type StepOutcome } from '../conversation/run-step.ts';
export { type EmulatorOptions, type RunningEmulator, startEmulator } from '../emulator/index.ts';
export { createManualClock, type ManualClock } from '../scheduler/create-manual-clock.ts';
export { createMemoryStore } from '../store/memory/create-memory-store.ts';
