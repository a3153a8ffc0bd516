import type { Claim, StepCommit } from './store.ts';

/**
 * Refuses a step commit that breaks the port's contract before it reaches a driver: a record
 * whose seq is not `expectedSeq + 1` would break the fencing of every later commit, and a
 * record or outbound message of another conversation would land in the wrong keys.
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
}
