import type { ConversationRecord, OutboundMessage, ReplyEvent } from '../store/records.ts';
import type { StepCommit } from '../store/store.ts';
import type { ComplianceMatch, ComplianceRules } from './compliance-rules.ts';
import { resultOf } from './result-of.ts';

/** The bot id of the messages the compliance step sends (they belong to no bot). */
export const complianceBotId = 'compliance';

/** The end code of a conversation ended by an opt-out. */
export const optedOutCode = 'opted_out';

/**
 * The step for a reply that is a compliance keyword (DESIGN §3: it outranks every bot).
 * - opt-out: suppress the phone (in the same commit), end its active conversation with
 *   `opted_out` and cancel its timers, send one confirmation (the only message a suppressed
 *   phone may receive), and update the contact when the location has a group;
 * - opt-in: lift the suppression and confirm (and update the contact back, with a group);
 * - help: answer with the help text and leave the conversation exactly where it was.
 */
export function complianceStep(
  event: ReplyEvent,
  record: ConversationRecord | null,
  match: ComplianceMatch,
  rules: ComplianceRules,
  now: number,
): StepCommit {
  const active = record?.status === 'active' ? record : null;
  const commit: StepCommit = {
    eventId: event.id,
    expectedSeq: record?.seq ?? 0,
    record: null,
    outbound: [],
  };
  // The record keeps the suppression too, so that no conversation starts for the phone.
  const marked = (suppressed: boolean): ConversationRecord => ({
    ...(record ?? {
      v: 1,
      location: event.location,
      phone: event.phone,
      runId: `${complianceBotId}:${event.id}`,
      botId: complianceBotId,
      botVersion: '',
      status: 'done',
      snapshot: null,
      seq: 0,
      startedAt: now,
      updatedAt: now,
    }),
    seq: (record?.seq ?? 0) + 1,
    updatedAt: now,
    suppressed,
  });
  const message = (index: number, fields: Partial<OutboundMessage>): OutboundMessage => ({
    v: 1,
    id: `${event.id}:${index}`,
    location: event.location,
    phone: event.phone,
    // Not the active run's: its bot must not hear the statuses of these messages.
    runId: `${complianceBotId}:${event.id}`,
    botId: complianceBotId,
    body: '',
    queuedAt: now,
    attempts: 0,
    loopGuard: rules.loopGuard,
    ...fields,
  });
  const text = rules.text(match.kind, match.language);
  // The location's contacts group, when it has one, follows the phone's subscription.
  const subscribeContact = (contactSubscribed: boolean) => {
    if (rules.group === undefined) return;
    const fields = { contactPhoneNumber: event.phone, contactSubscribed };
    commit.outbound.push(message(1, { contact: { group: rules.group, fields } }));
  };
  switch (match.kind) {
    case 'opt-out': {
      commit.suppression = 'add';
      // The entry's reason: the keyword as texted, normalised (`STOP`, `ARRET`, `OPT OUT`).
      commit.suppressionReason = match.keyword.toUpperCase();
      commit.record = marked(true);
      if (active) {
        commit.record = { ...commit.record, status: 'done', endedReason: optedOutCode, timers: {} };
        commit.timers = { set: [], cancel: Object.keys(active.timers ?? {}) };
        commit.results = [resultOf(commit.record)];
      }
      commit.outbound.push(message(0, { body: text, compliance: 'opt-out' }));
      subscribeContact(false);
      return commit;
    }
    case 'opt-in':
      commit.suppression = 'remove';
      if (record?.suppressed) commit.record = marked(false);
      commit.outbound.push(message(0, { body: text, compliance: 'opt-in' }));
      subscribeContact(true);
      return commit;
    case 'help':
      commit.outbound.push(message(0, { body: text, compliance: 'help' }));
      return commit;
  }
}
