/**
 * The sends a process has in flight: at most `size` at once, handed out first come, first
 * served. The sender holds a place from just before `POST /sms` until the service's sms id is
 * recorded, so a process killed at any moment leaves at most `size` messages accepted by the
 * service and not yet recorded: the duplicate window of DESIGN §2.4. Claiming, reading and
 * releasing happen outside it, so with several lanes those round trips overlap the send in
 * flight instead of adding to it.
 *
 * Answers first: a send marked `bulk` (bot-initiated) waits for a place after the waiting
 * answers, and bulk sends hold at most `size - answerPlaces` places at once. A bulk send holds
 * its place while it waits for its rate-limit slot, and those reach their slots one batch at a
 * time behind a campaign: without places kept, an answer would wait for one of them to finish.
 */
export interface SendWindow {
  /** Runs `send` once a place is free, and frees it when `send` settles. */
  run<T>(send: () => Promise<T>, options?: { bulk?: boolean }): Promise<T>;
  /** Sends in flight now. */
  readonly inFlight: number;
}

export function createSendWindow(size: number, answerPlaces = 0): SendWindow {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`sends in flight must be a whole number ≥ 1, got ${size}`);
  }
  // Bulk sends always have one place at least.
  const bulkPlaces = Math.max(1, size - answerPlaces);
  let inFlight = 0;
  let bulkInFlight = 0;
  const waiting: Array<() => void> = [];
  const waitingBulk: Array<() => void> = [];

  const mayEnter = (bulk: boolean) => inFlight < size && (!bulk || bulkInFlight < bulkPlaces);

  function take(bulk: boolean): void {
    inFlight++;
    if (bulk) bulkInFlight++;
  }

  function enter(bulk: boolean): Promise<void> {
    // Nobody passes those already waiting of its kind (nor, for bulk, the waiting answers).
    const queued = waiting.length > 0 || (bulk && waitingBulk.length > 0);
    if (!queued && mayEnter(bulk)) {
      take(bulk);
      return Promise.resolve();
    }
    return new Promise((resolve) => (bulk ? waitingBulk : waiting).push(resolve));
  }

  function leave(bulk: boolean): void {
    inFlight--;
    if (bulk) bulkInFlight--;
    // The freed place goes to a waiting answer first, then to a waiting bulk send if it may.
    if (waiting.length > 0 && mayEnter(false)) {
      take(false);
      waiting.shift()!();
    } else if (waitingBulk.length > 0 && mayEnter(true)) {
      take(true);
      waitingBulk.shift()!();
    }
  }

  return {
    async run(send, options) {
      const bulk = options?.bulk === true;
      await enter(bulk);
      try {
        return await send();
      } finally {
        leave(bulk);
      }
    },
    get inFlight() {
      return inFlight;
    },
  };
}
