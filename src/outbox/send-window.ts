/**
 * The sends a process has in flight: at most `size` at once, handed out first come, first
 * served. The sender holds a place from just before `POST /sms` until the service's sms id is
 * recorded, so a process killed at any moment leaves at most `size` messages accepted by the
 * service and not yet recorded: the duplicate window of DESIGN §2.4. Claiming, reading and
 * releasing happen outside it, so with several lanes those round trips overlap the send in
 * flight instead of adding to it. A waiting send marked `bulk` (bot-initiated: it waits for its
 * rate-limit slot behind answers anyway) is let in after the waiting answers.
 */
export interface SendWindow {
  /** Runs `send` once a place is free, and frees it when `send` settles. */
  run<T>(send: () => Promise<T>, options?: { bulk?: boolean }): Promise<T>;
  /** Sends in flight now. */
  readonly inFlight: number;
}

export function createSendWindow(size: number): SendWindow {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`sends in flight must be a whole number ≥ 1, got ${size}`);
  }
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const waitingBulk: Array<() => void> = [];

  function enter(bulk: boolean): Promise<void> {
    if (inFlight < size) {
      inFlight++;
      return Promise.resolve();
    }
    // The place is handed over by leave(), without inFlight going down in between.
    return new Promise((resolve) => (bulk ? waitingBulk : waiting).push(resolve));
  }

  function leave(): void {
    const next = waiting.shift() ?? waitingBulk.shift();
    if (next) next();
    else inFlight--;
  }

  return {
    async run(send, options) {
      await enter(options?.bulk === true);
      try {
        return await send();
      } finally {
        leave();
      }
    },
    get inFlight() {
      return inFlight;
    },
  };
}
