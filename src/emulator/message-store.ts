import type { NotifiedSms } from '../provider/schemas/sms.ts';
import type { Clock } from '../scheduler/clock.ts';

/** An SMS as the emulator keeps it: the service's full object plus the location that sent it. */
export type StoredSms = NotifiedSms & { location: string };

export interface MessageFilter {
  to?: string | undefined;
  location?: string | undefined;
}

/** Every SMS accepted by `POST /sms`, oldest first. Reads and writes go through copies. */
export class MessageStore {
  readonly #byId = new Map<string, StoredSms>();
  // Replies and `GET /_emulator/messages?to=` look up by phone; load tests hold many thousands.
  readonly #byTo = new Map<string, StoredSms[]>();

  constructor(private readonly clock: Clock) {}

  add(sms: StoredSms): StoredSms {
    const stored = { ...sms };
    this.#byId.set(sms.id, stored);
    const sameTo = this.#byTo.get(sms.to);
    if (sameTo) sameTo.push(stored);
    else this.#byTo.set(sms.to, [stored]);
    return { ...sms };
  }

  get(id: string): StoredSms | undefined {
    const sms = this.#byId.get(id);
    return sms && { ...sms };
  }

  /** The SMS with that id, only when it belongs to `location` (a key pair sees only its own). */
  getInLocation(location: string, id: string): StoredSms | undefined {
    const sms = this.#byId.get(id);
    return sms?.location === location ? { ...sms } : undefined;
  }

  list(filter: MessageFilter = {}): StoredSms[] {
    const candidates =
      filter.to === undefined ? [...this.#byId.values()] : (this.#byTo.get(filter.to) ?? []);
    return candidates
      .filter((sms) => filter.location === undefined || sms.location === filter.location)
      .map((sms) => ({ ...sms }));
  }

  /** Applies a status change and stamps `updatedAt`; undefined when the SMS is gone (reset). */
  update(
    id: string,
    changes: Partial<Pick<StoredSms, 'status' | 'statusReason' | 'price'>>,
  ): StoredSms | undefined {
    const sms = this.#byId.get(id);
    if (!sms) return undefined;
    Object.assign(sms, changes, { updatedAt: new Date(this.clock.now()).toISOString() });
    return { ...sms };
  }

  clear(): void {
    this.#byId.clear();
    this.#byTo.clear();
  }
}

/** The SMS object of the service's API, without the emulator's `location`. */
export function toServiceSms({ location: _location, ...sms }: StoredSms): NotifiedSms {
  return sms;
}
