import { type AnyMachineSnapshot, initialTransition, transition } from 'xstate';
import type { BotInput } from '../bot/bot-events.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Bot } from '../bot/define-bot.ts';
import type { ConversationRecord, MailboxEvent, MessageRecord } from '../store/records.ts';
import type { StepCommit } from '../store/store.ts';
import { collectEffects } from './collect-effects.ts';
import { implicitEnd } from './implicit-end.ts';
import { planTimers } from './plan-timers.ts';
import { resumeSnapshot } from './resume-snapshot.ts';
import { type Route, routeEvent } from './route-event.ts';
import { queueStart, replacedBy, startQueued } from './start-policy.ts';
import { toMachineEvent } from './to-machine-event.ts';
import { toOutbound } from './to-outbound.ts';

export interface StepInput {
  event: MailboxEvent;
  record: ConversationRecord | null;
  /** For a reply, the message it answers; for a status, the message it is about. */
  message: MessageRecord | null;
  registry: BotRegistry;
  now: number;
  newRunId: () => string;
}

/** What happened, for logs and metrics. */
export interface StepOutcome {
  route: Route['kind'];
  reason: string;
  botId?: string;
  /** Set when an active run had to end before routing (version mismatch, bot removed). */
  ended?: { botId: string; code: string; detail: string };
  /** Set when the bot threw: the run is marked `errored`. */
  error?: unknown;
  ignoredActions: string[];
}

/**
 * The pure step: one mailbox event in, the commit to make out. No I/O, no live actor: the
 * machine advances with XState's `initialTransition` / `transition`, which return the next
 * snapshot and the actions as data. Never throws; a bot that throws yields an `errored` record.
 */
export function runStep(input: StepInput): { commit: StepCommit; outcome: StepOutcome } {
  // A step that ends a run starts the first start queued behind it, in the same commit.
  return startQueued(runOneStep(input), (event, record) =>
    runOneStep({ ...input, event, record, message: null }),
  );
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
      active = null;
    }
  }
  // A start's policy toward the active conversation (`startPolicy`): replace it, or wait for it.
  const replaced = replacedBy(event, active, input.registry, now);
  if (replaced) {
    commit.record = replaced;
    commit.timers = { set: [], cancel: Object.keys(active?.timers ?? {}) };
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
  };
  if (route.kind === 'drop') return { commit, outcome };

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
        }
      : { ...route.record, botVersion: bot.version, seq: commit.expectedSeq + 1, updatedAt: now };
  if (event.kind === 'timer' && base.timers) {
    // It fired: its record is gone from the store already.
    const { [event.timerId]: _fired, ...rest } = base.timers;
    base.timers = rest;
  }
  try {
    const [snapshot, actions] = advance(bot, route, resumed, event);
    const effects = collectEffects(actions);
    outcome.ignoredActions = effects.ignored;
    if (snapshot.status === 'error') throw (snapshot as { error?: unknown }).error;
    const endedReason = effects.endReason ?? implicitEnd(bot, event, snapshot.status === 'done');
    const timers = planTimers({
      run: base,
      ops: effects.timers,
      now,
      finished: endedReason !== undefined,
      // A delivery report is not activity: only it would otherwise keep a silent conversation alive.
      expiresAfterMs: event.kind === 'status' ? undefined : bot.expiresAfterMs,
    });
    commit.timers = {
      set: timers.set,
      cancel: [...(commit.timers?.cancel ?? []), ...timers.cancel],
    };
    commit.record = {
      ...base,
      snapshot: bot.machine.getPersistedSnapshot(snapshot),
      status: endedReason === undefined ? 'active' : 'done',
      timers: timers.live,
      ...(endedReason === undefined ? {} : { endedReason }),
    };
    commit.outbound = effects.replies.map((body, index) =>
      toOutbound(base, event.id, index, body, now),
    );
  } catch (error) {
    outcome.error = error;
    commit.record = { ...base, status: 'errored', endedReason: 'BOT_THREW', timers: {} };
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
) {
  const machineEvent = toMachineEvent(event);
  if (route.kind === 'start') {
    const startInput: BotInput = {
      location: event.location,
      phone: event.phone,
      input: route.input,
    };
    const [first, entryActions] = initialTransition(bot.machine, startInput);
    const [next, actions] = transition(bot.machine, first, machineEvent);
    return [next, [...entryActions, ...actions]] as const;
  }
  return transition(bot.machine, resumed!, machineEvent);
}
