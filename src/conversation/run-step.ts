import type { AnyMachineSnapshot } from 'xstate';
import type { BotInput } from '../bot/bot-events.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Bot } from '../bot/define-bot.ts';
import type { SkipReason } from '../store/campaign-records.ts';
import type {
  CampaignStart,
  ConversationRecord,
  MailboxEvent,
  MessageRecord,
  StartEvent,
} from '../store/records.ts';
import type { StepCommit } from '../store/store.ts';
import { countFunnel } from './campaign-funnel.ts';
import { collectEffects } from './collect-effects.ts';
import { collectEvents, outboundEvent } from './collect-events.ts';
import type { ComplianceRules } from './compliance-rules.ts';
import { complianceStep, optedOutCode } from './compliance-step.ts';
import { countActivity } from './count-activity.ts';
import { implicitEnd } from './implicit-end.ts';
import { planTimers } from './plan-timers.ts';
import { pureInitialTransition, pureTransition } from './pure-transition.ts';
import { resultOf } from './result-of.ts';
import { resumeSnapshot } from './resume-snapshot.ts';
import { type Route, routeEvent } from './route-event.ts';
import { queueStart, replacedBy, startQueued } from './start-policy.ts';
import { toMachineEvent, triggerOf } from './to-machine-event.ts';
import { toOutbound } from './to-outbound.ts';

export interface StepInput {
  event: MailboxEvent;
  record: ConversationRecord | null;
  /** For a reply, the message it answers; for a status, the message it is about. */
  message: MessageRecord | null;
  registry: BotRegistry;
  now: number;
  newRunId: () => string;
  /**
   * The location's compliance rules: keywords (STOP, START, HELP…) handled before any bot, the
   * loop guard stamped on every message, and quiet hours for the messages a bot starts on its
   * own. Absent: none of these apply (unit tests of bots).
   */
  compliance?: ComplianceRules;
  /**
   * The phone is on the location's suppression list: nothing starts for it. The worker learns
   * it from the store when it commits a start (`StepCommit.unlessSuppressed`, refused with
   * `suppressed`) and runs the step again with this set, so other steps read nothing more.
   */
  suppressed?: boolean;
  /**
   * The location has event subscriptions (issue 24): the commit carries the step's outbound
   * events. Absent: none are made, and the commit writes nothing more.
   */
  events?: boolean;
}

/** What happened, for logs and metrics. */
export interface StepOutcome {
  route: Route['kind'] | 'compliance';
  reason: string;
  botId?: string;
  /** Set when an active run had to end before routing (version mismatch, bot removed). */
  ended?: { botId: string; code: string; detail: string };
  /** Set when the bot threw: the run is marked `errored`. */
  error?: unknown;
  ignoredActions: string[];
  /** The machine's state value before and after the step (logs: each turn at `info`). */
  stateBefore?: unknown;
  stateAfter?: unknown;
}

/**
 * The pure step: one mailbox event in, the commit to make out. No I/O, no live actor: the
 * machine advances with XState's pure transitions (`pure-transition.ts`: `initialTransition` /
 * `transition` without their throwaway actor), which return the next snapshot and the actions as
 * data. Never throws; a bot that throws yields an `errored` record.
 */
export function runStep(input: StepInput): { commit: StepCommit; outcome: StepOutcome } {
  // A step that ends a run starts the first start queued behind it, in the same commit.
  const step = startQueued(runOneStep(input), (event, record) =>
    runOneStep({ ...input, event, record, message: null }),
  );
  countFunnel(input.event, input.record, step.commit, input.message, input.now);
  countActivity(input.event, input.record, step.commit, input.message, input.now);
  if (input.events) collectEvents(input.event, input.record, step.commit, input.now);
  return step;
}

function runOneStep(input: StepInput): { commit: StepCommit; outcome: StepOutcome } {
  const { event, record, now } = input;
  const commit: StepCommit = {
    eventId: event.id,
    expectedSeq: record?.seq ?? 0,
    record: null,
    outbound: [],
  };
  let active = record?.status === 'active' ? record : null;
  const rules = input.compliance;
  if (event.kind === 'reply' && rules) {
    const claimed = active ? input.registry.bots.get(active.botId)?.claims : undefined;
    const match = rules.match(event.body, claimed);
    if (match) {
      return {
        commit: complianceStep(event, record, match, rules, now),
        outcome: {
          route: 'compliance',
          reason: match.kind,
          ...(active && { botId: active.botId }),
          ...(match.kind === 'opt-out' &&
            active && {
              ended: { botId: active.botId, code: optedOutCode, detail: `texted ${match.keyword}` },
            }),
          ignoredActions: [],
        },
      };
    }
  }
  let ended: StepOutcome['ended'];
  let resumed: AnyMachineSnapshot | undefined;
  if (active) {
    const result = resumeSnapshot(input.registry.bots.get(active.botId), active);
    if (result.ok) resumed = result.snapshot;
    else {
      ended = { botId: active.botId, code: result.code, detail: result.detail };
      commit.record = {
        ...active,
        status: 'done',
        endedReason: result.code,
        seq: active.seq + 1,
        updatedAt: now,
        timers: {},
      };
      commit.timers = { set: [], cancel: Object.keys(active.timers ?? {}) };
      commit.results = [resultOf(commit.record)];
      active = null;
    }
  }
  // A start's policy toward the active conversation (`startPolicy`): replace it, or wait for it.
  const replaced = replacedBy(event, active, input.registry, now);
  if (replaced) {
    commit.record = replaced;
    commit.timers = { set: [], cancel: Object.keys(active?.timers ?? {}) };
    commit.results = [resultOf(replaced)];
    active = null;
  }
  const queued = queueStart(event, active, commit, now);
  if (queued) return queued;
  const route = routeEvent({ event, active, message: input.message, registry: input.registry });
  const outcome: StepOutcome = {
    route: route.kind,
    reason: route.reason,
    ended,
    ignoredActions: [],
    stateBefore: resumed?.value,
  };
  if (route.kind === 'drop') {
    if (event.kind === 'start' && event.campaign) {
      commit.recipient = active
        ? recipientChange(event, event.campaign, 'skipped', 'active_conversation')
        : recipientChange(event, event.campaign, 'failed', 'bot_not_loaded');
    }
    return { commit, outcome };
  }
  if (route.kind === 'start' && input.suppressed) {
    // Opted out: nothing may be sent, so nothing starts, until the phone texts START.
    if (event.kind === 'start' && event.campaign) {
      commit.recipient = recipientChange(event, event.campaign, 'skipped', 'opted_out');
    }
    return { commit, outcome: { ...outcome, route: 'drop', reason: 'the phone opted out' } };
  }
  // The suppression list is the one truth of an opt-out (an imported one has no record): the
  // commit is refused if the phone is on it, and the step runs again with `suppressed`.
  if (route.kind === 'start') commit.unlessSuppressed = true;

  const bot = route.kind === 'start' ? route.bot : input.registry.bots.get(route.record.botId)!;
  outcome.botId = bot.id;
  const base: ConversationRecord =
    route.kind === 'start'
      ? {
          v: 1,
          location: event.location,
          phone: event.phone,
          runId: input.newRunId(),
          botId: bot.id,
          botVersion: bot.version,
          status: 'active',
          snapshot: null,
          seq: commit.expectedSeq + 1,
          startedAt: now,
          updatedAt: now,
          ...(event.kind === 'start' &&
            event.campaign && {
              campaign: { name: event.campaign.name, row: event.campaign.row },
            }),
        }
      : { ...route.record, botVersion: bot.version, seq: commit.expectedSeq + 1, updatedAt: now };
  if (event.kind === 'timer' && base.timers) {
    // It fired: its record is gone from the store already.
    const { [event.timerId]: _fired, ...rest } = base.timers;
    base.timers = rest;
  }
  try {
    const [snapshot, actions] = advance(bot, route, resumed, event, rules?.group);
    const effects = collectEffects(actions);
    outcome.ignoredActions = effects.ignored;
    if (snapshot.status === 'error') throw (snapshot as { error?: unknown }).error;
    outcome.stateAfter = snapshot.value;
    const endedReason = effects.endReason ?? implicitEnd(bot, event, snapshot.status === 'done');
    // Expiry counts from the last event that reached the bot or the last message it sent: a
    // delivery report is not activity, nor a timer that fired and did nothing (a reminder its
    // guard held back), which would otherwise keep a silent conversation alive.
    const activity =
      event.kind === 'status' || event.kind === 'contact'
        ? false
        : event.kind !== 'timer' ||
          effects.replies.length > 0 ||
          JSON.stringify(snapshot.value) !== JSON.stringify(resumed?.value);
    const timers = planTimers({
      run: base,
      ops: effects.timers,
      now,
      finished: endedReason !== undefined,
      expiresAfterMs: activity ? bot.expiresAfterMs : undefined,
    });
    commit.timers = {
      set: timers.set,
      cancel: [...(commit.timers?.cancel ?? []), ...timers.cancel],
    };
    const recorded = Object.keys(effects.recorded).length > 0;
    commit.record = {
      ...base,
      snapshot: bot.machine.getPersistedSnapshot(snapshot),
      status: endedReason === undefined ? 'active' : 'done',
      timers: timers.live,
      ...(endedReason === undefined ? {} : { endedReason }),
      ...(recorded && { result: { ...base.result, ...effects.recorded } }),
    };
    // A run's result is written when it ends: until then its record holds it (`resultOf`),
    // which is where `listResults` with active runs reads it, and a live run costs no key.
    if (endedReason !== undefined) {
      commit.results = [...(commit.results ?? []), resultOf(commit.record)];
    }
    // Messages the bot starts on its own (an API start, a timer) wait for the quiet hours to
    // end: held now if they have begun, and checked again by the sender when they go out.
    const ownMessage = event.kind === 'start' || event.kind === 'timer';
    const holdUntil = ownMessage ? rules?.quietUntil(now) : undefined;
    commit.outbound = effects.replies.map((body, index) => ({
      ...toOutbound(base, event.id, index, body, now),
      ...(rules && { loopGuard: rules.loopGuard }),
      ...(holdUntil !== undefined && { holdUntil }),
      ...(ownMessage && { botInitiated: true as const }),
    }));
    if (input.events && effects.notified.length > 0) {
      const own = effects.notified.map((n) => outboundEvent(base, n.type, n.payload, now));
      commit.events = [...(commit.events ?? []), ...own];
    }
    // Contact updates go after the step's messages, through the same outbox.
    effects.contacts.forEach(({ group, fields }, i) => {
      commit.outbound.push({
        ...toOutbound(base, event.id, effects.replies.length + i, '', now),
        contact: { group, fields: { contactPhoneNumber: base.phone, ...fields } },
      });
    });
  } catch (error) {
    outcome.error = error;
    commit.record = { ...base, status: 'errored', endedReason: 'BOT_THREW', timers: {} };
    commit.results = [...(commit.results ?? []), resultOf(commit.record)];
    commit.timers = {
      set: [],
      cancel: [...(commit.timers?.cancel ?? []), ...Object.keys(base.timers ?? {})],
    };
  }
  return { commit, outcome };
}

function advance(
  bot: Bot,
  route: Route,
  resumed: AnyMachineSnapshot | undefined,
  event: MailboxEvent,
  contactGroup: number | undefined,
) {
  const machineEvent = toMachineEvent(event);
  if (route.kind === 'start') {
    const startInput: BotInput = {
      location: event.location,
      phone: event.phone,
      input: route.input,
      ...(contactGroup !== undefined && { contactGroup }),
    };
    const [first, entryActions] = pureInitialTransition(bot.machine, startInput);
    // A keyword's (or the fallback's) triggering message starts the conversation: the bot hears
    // it in `conversation.start`, never as its first `sms.reply`.
    const startEvent =
      event.kind === 'reply'
        ? {
            type: 'conversation.start',
            input: route.input,
            receivedAt: new Date(event.receivedAt).toISOString(),
            trigger: triggerOf(event),
          }
        : machineEvent;
    const [next, actions] = pureTransition(bot.machine, first, startEvent);
    return [next, [...entryActions, ...actions]] as const;
  }
  return pureTransition(bot.machine, resumed!, machineEvent);
}

/**
 * A campaign recipient's start that started nothing: the recipient, marked `started` when it
 * fired, becomes skipped (the phone is busy or opted out) or failed (its bot is not loaded) in
 * the same commit.
 */
function recipientChange(
  event: StartEvent,
  start: CampaignStart,
  state: 'skipped' | 'failed',
  reason: SkipReason | 'bot_not_loaded',
): StepCommit['recipient'] {
  return { campaign: `${event.location}:${start.name}`, start, state, reason };
}
