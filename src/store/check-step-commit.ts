import type { Claim, StepCommit } from './store.ts';

/**
 * Refuses a step commit that breaks the port's contract before it reaches a driver: a record
 * whose seq is not `expectedSeq + 1` would break the fencing of every later commit, and a
 * record, outbound message or timer of another conversation would land in the wrong keys. A
 * timer id both set and cancelled in one commit is refused too: the port gives the two lists
 * no order, so the caller says which one it means (the engine's `planTimers` never sends both).
 */
export function checkStepCommit(claim: Claim, step: StepCommit): void {
  const sameConversation = (key: { location: string; phone: string }) =>
    key.location === claim.location && key.phone === claim.phone;
  if (claim.queue !== 'inbox') throw new TypeError('commitStep needs an inbox claim');
  if (step.record) {
    if (step.record.seq !== step.expectedSeq + 1) {
      throw new TypeError(
        `record seq ${step.record.seq} must be expectedSeq + 1 (${step.expectedSeq + 1})`,
      );
    }
    if (!sameConversation(step.record)) {
      throw new TypeError('the committed record belongs to another conversation than the claim');
    }
  }
  for (const message of step.outbound) {
    if (!sameConversation(message)) {
      throw new TypeError(`outbound message '${message.id}' belongs to another conversation`);
    }
  }
  if (step.timers) checkTimers(step.timers, sameConversation);
  const lease = step.claimOutbox?.leaseMs;
  if (lease !== undefined && (!Number.isInteger(lease) || lease <= 0)) {
    throw new RangeError(`outbox lease ${lease} ms must be a positive integer`);
  }
}

function checkTimers(
  timers: NonNullable<StepCommit['timers']>,
  sameConversation: (key: { location: string; phone: string }) => boolean,
): void {
  const cancelled = new Set(timers.cancel);
  for (const timer of timers.set) {
    if (!sameConversation(timer)) {
      throw new TypeError(`timer '${timer.id}' belongs to another conversation`);
    }
    if (timer.id !== `${timer.runId}:${timer.sendId}`) {
      throw new TypeError(`timer id '${timer.id}' must be '${timer.runId}:${timer.sendId}'`);
    }
    if (!Number.isFinite(timer.dueAt)) {
      throw new TypeError(`timer '${timer.id}' has no finite due time (${timer.dueAt})`);
    }
    if (cancelled.has(timer.id)) {
      throw new TypeError(`timer '${timer.id}' is both set and cancelled in one commit`);
    }
  }
}
