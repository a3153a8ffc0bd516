import type {
  DeliveryAttempt,
  EventSubscription,
  OutboundEvent,
} from '../../events/outbound-event.ts';
import { receiverName } from '../../events/subscription-key.ts';

/** What another receiver of the location (the developer's own) answered to an event. */
export interface ReceiverAnswer {
  /** Its URL's host. */
  receiver: string;
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
  /** When it answered, by the dev clock (ms). */
  at: number;
}

/** One event the dev receiver took, signature verified, with the other receivers' answers. */
export interface ReceivedEvent {
  id: string;
  type: string;
  bot: string;
  location: string;
  maskedPhone: string;
  /** When the step that emitted it ran (the event's `timestamp`). */
  timestamp: string;
  /** When it arrived here, by the dev clock (ms). */
  receivedAt: number;
  /** Deliveries of this id the receiver took (more than 1: an answer was lost, at least once). */
  copies: number;
  event: OutboundEvent;
  answers: ReceiverAnswer[];
}

/** Events kept: a dev session, not an archive. */
const ringSize = 500;

/**
 * `replyflow dev`'s own event receiver: a subscription to every event of each location, to
 * `/dev/receiver` on the dev server, so the dev phone shows what each bot sent. It keeps the
 * last 500 events, newest first, and the answers of the developer's own receivers
 * (REPLYFLOW_EVENTS_URL) to each, and tells `onChange` of every change.
 */
export class DevReceiver {
  readonly #events = new Map<string, ReceivedEvent>();
  /** Answers that came before their event reached the dev receiver (both are posted at once). */
  readonly #early = new Map<string, ReceiverAnswer[]>();
  readonly #listeners = new Set<(entry: ReceivedEvent) => void>();
  #refused = 0;

  constructor(
    /** The dev subscription's secret (`newEventSecret()`, made at each start). */
    readonly secret: string,
    /** `<dev origin>/dev/receiver`. */
    readonly url: string,
    private readonly now: () => number,
  ) {}

  /** The subscription each dev location gets beside its own. */
  subscription(): EventSubscription {
    return { url: this.url, secret: this.secret, allowPrivateAddresses: true };
  }

  /** Keeps an event whose signature verified (a copy of one already kept is counted). */
  take(event: OutboundEvent): ReceivedEvent {
    const known = this.#events.get(event.id);
    if (known) {
      known.copies += 1;
      this.#changed(known);
      return known;
    }
    const entry: ReceivedEvent = {
      id: event.id,
      type: event.type,
      bot: event.data.bot,
      location: event.data.location,
      maskedPhone: event.data.maskedPhone,
      timestamp: event.timestamp,
      receivedAt: this.now(),
      copies: 1,
      event,
      answers: this.#early.get(event.id) ?? [],
    };
    this.#early.delete(event.id);
    this.#events.set(event.id, entry);
    while (this.#events.size > ringSize) this.#events.delete(this.#events.keys().next().value!);
    this.#changed(entry);
    return entry;
  }

  /** Counts a delivery refused (bad signature, stale timestamp): not from this server. */
  refuse(): void {
    this.#refused += 1;
  }

  /** Notes what another subscription (not this receiver) answered to `event`. */
  noteAnswer(subscription: EventSubscription, event: OutboundEvent, attempt: DeliveryAttempt) {
    if (subscription.url === this.url) return;
    const answer: ReceiverAnswer = {
      receiver: receiverName(subscription),
      ok: attempt.ok,
      ...(attempt.status !== undefined && { status: attempt.status }),
      ...(attempt.error !== undefined && { error: attempt.error }),
      durationMs: attempt.durationMs,
      at: this.now(),
    };
    const entry = this.#events.get(event.id);
    if (entry) {
      entry.answers.push(answer);
      this.#changed(entry);
      return;
    }
    this.#early.set(event.id, [...(this.#early.get(event.id) ?? []), answer]);
    while (this.#early.size > ringSize) this.#early.delete(this.#early.keys().next().value!);
  }

  /** The events kept, newest first; only `bot`'s when given. */
  list(bot?: string): ReceivedEvent[] {
    const all = [...this.#events.values()].reverse();
    return bot === undefined ? all : all.filter((entry) => entry.bot === bot);
  }

  get refused(): number {
    return this.#refused;
  }

  onChange(listener: (entry: ReceivedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(entry: ReceivedEvent): void {
    for (const listener of this.#listeners) listener(entry);
  }
}
