import type { BotRegistry } from '../../bot/bot-registry.ts';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/store.ts';
import { type ConversationView, stateLabel, toConversationView } from './conversation-view.ts';
import type { DevPhoneJournal } from './dev-phone-journal.ts';

export interface ConversationWatch {
  /** Looks again soon (coalesced): after anything that may have moved a conversation. */
  poke(): void;
  /**
   * Runs `append` after the phone's conversation was read again, in call order. Thread entries made
   * from the emulator's events go through here, so a state change the engine committed before
   * sending its answer is noted above that answer.
   */
  serially(phone: string, append: () => void): void;
  /** Reads a phone's conversation now; later changes are told from this view. */
  read(phone: string): Promise<ConversationView | null>;
  /** The last view read of each phone that has a conversation. */
  known(): Array<[string, ConversationView]>;
  /** Takes `view` as what a phone had (before a start), so the start is noted. */
  remember(phone: string, view: ConversationView | null): void;
  stop(): void;
}

/** How many of the most recently active phones a general look reads. */
const recentPhones = 50;
/** While a page watches, the store is read at least this often (a timer fired elsewhere). */
const pollMs = 1000;

/**
 * Follows the conversations of the phones the dev phone shows, and tells the page when one
 * moves: the side panel gets the new view, and the thread a notice where the move happened
 * (started, `asking → confirmed`, ended and why). It reads the store after the store says work
 * moved (`onReady`), and once a second while a page is open: the engine keeps no other trace.
 */
export function watchConversations(deps: {
  store: Store;
  journal: DevPhoneJournal;
  location: string;
  registry: () => BotRegistry;
  logger?: Logger;
}): ConversationWatch {
  const { store, journal, location } = deps;
  const seen = new Map<string, ConversationView | null>();
  let scheduled: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const read = async (phone: string) => {
    const [record, optedOut] = await Promise.all([
      store.getConversation({ location, phone }),
      store.isSuppressed({ location, phone }),
    ]);
    return record ? toConversationView(record, deps.registry(), optedOut) : null;
  };

  const refresh = async (phones: readonly string[]) => {
    for (const phone of phones) {
      const now = await read(phone);
      const before = seen.get(phone);
      if (before !== undefined && (before?.revision ?? null) === (now?.revision ?? null)) continue;
      seen.set(phone, now);
      if (before !== undefined) announce(phone, before, now);
      journal.publish('conversation', { phone, conversation: now });
    }
  };

  const announce = (
    phone: string,
    before: ConversationView | null,
    now: ConversationView | null,
  ) => {
    if (!now) return;
    const at = now.updatedAt;
    const note = (text: string, tone: 'info' | 'warn' | 'error' = 'info') =>
      journal.append({ kind: 'notice', phone, at, text, tone });
    const fresh = before?.runId !== now.runId;
    if (now.optedOut !== (before?.optedOut ?? false)) {
      note(
        now.optedOut
          ? 'opted out: this number gets nothing but the confirmation until it texts START'
          : 'opted back in',
        now.optedOut ? 'warn' : 'info',
      );
    }
    if (!fresh && before.version !== now.version) {
      note(`${now.bot} migrated to version ${now.version} (was ${before.version})`);
    }
    if (fresh)
      note(`${now.bot} started${stateLabel(now.state) ? ` · ${stateLabel(now.state)}` : ''}`);
    else if (stateLabel(before.state) !== stateLabel(now.state)) {
      note(`${now.bot}: ${stateLabel(before.state)} → ${stateLabel(now.state)}`);
    }
    if (now.status !== 'active' && (fresh || before?.status === 'active')) {
      const why = now.endedReason ? `: ${now.endedReason}` : '';
      note(
        `${now.bot} ${now.status === 'errored' ? 'failed' : 'ended'}${why}`,
        now.status === 'errored'
          ? 'error'
          : /^(expired|[A-Z_]+)$/.test(now.endedReason ?? '')
            ? 'warn'
            : 'info',
      );
    }
  };

  const queue = (phones: () => readonly string[], then: () => void = () => {}) => {
    running = running
      .then(() => refresh(phones()))
      .catch((error) => deps.logger?.warn({ err: error }, 'dev phone: cannot read conversations'))
      .then(then);
  };
  const run = () => {
    scheduled = undefined;
    // The phones most recently active: a dev server under load keeps its reads bounded.
    queue(() => journal.phones().slice(0, recentPhones));
  };
  const poke = () => {
    // A short delay gathers the burst of onReady calls one turn makes into one read.
    scheduled ??= setTimeout(run, 15);
  };
  const stopReady = store.onReady(poke);
  const timer = setInterval(() => {
    if (journal.watched) poke();
  }, pollMs);
  timer.unref();

  return {
    poke,
    serially(phone, append) {
      queue(() => [phone], append);
    },
    known() {
      return [...seen].filter((entry): entry is [string, ConversationView] => entry[1] !== null);
    },
    remember(phone, view) {
      seen.set(phone, view);
    },
    async read(phone) {
      await running;
      const view = await read(phone);
      // The page gets this view now: later changes are told from it.
      if (!seen.has(phone)) seen.set(phone, view);
      return view;
    },
    stop() {
      stopReady();
      clearInterval(timer);
      if (scheduled) clearTimeout(scheduled);
    },
  };
}
