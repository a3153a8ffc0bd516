/** The time source of the engine, the scheduler and the sender; tests use a manual clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
