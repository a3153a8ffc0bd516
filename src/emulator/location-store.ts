import type { ContactPayload } from '../provider/schemas/contact.ts';
import type { CustomColumn } from '../provider/schemas/custom-column.ts';
import type { Group } from '../provider/schemas/group.ts';
import type { Webhook } from '../provider/schemas/webhook.ts';

/**
 * A contact as created by `POST /groups/{id}/contacts`. The spec does not show the response;
 * `{ id, groupId, ...payload }` is our documented assumption.
 */
export type ContactRecord = ContactPayload & { id: number; groupId: number };

/** Everything a location owns besides its messages. */
export interface LocationRecord {
  name: string;
  balance: number;
  webhooks: Map<string, Webhook>;
  groups: Map<number, Group>;
  contacts: ContactRecord[];
  columns: CustomColumn[];
}

export interface LocationSeed {
  initialBalance: number;
  columns(venueId: number): CustomColumn[];
}

/**
 * The locations of the emulated account, created on first use so that any location named by a
 * key pair or by the control API exists. Group and contact ids are integers, as in the spec,
 * and never reused within a run.
 */
export class LocationStore {
  readonly #locations = new Map<string, LocationRecord>();
  /** Kept across resets, so a location keeps its venue id for the whole run. */
  readonly #venueIds = new Map<string, number>();
  #lastGroupId = 0;
  #lastContactId = 0;

  constructor(private readonly seed: LocationSeed) {}

  get(name: string): LocationRecord {
    let record = this.#locations.get(name);
    if (!record) {
      record = {
        name,
        balance: this.seed.initialBalance,
        webhooks: new Map(),
        groups: new Map(),
        contacts: [],
        columns: this.seed.columns(this.#venueId(name)),
      };
      this.#locations.set(name, record);
    }
    return record;
  }

  #venueId(name: string): number {
    const known = this.#venueIds.get(name);
    if (known !== undefined) return known;
    const id = this.#venueIds.size + 1;
    this.#venueIds.set(name, id);
    return id;
  }

  nextGroupId(): number {
    this.#lastGroupId += 1;
    return this.#lastGroupId;
  }

  nextContactId(): number {
    this.#lastContactId += 1;
    return this.#lastContactId;
  }

  /** Forgets webhooks, groups and contacts, and restores every starting balance. */
  clear(): void {
    this.#locations.clear();
  }
}
