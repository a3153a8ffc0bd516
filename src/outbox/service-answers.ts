import type { Clock } from '../scheduler/clock.ts';

/** How often, at most, a location's service is asked whether it answers while sends wait on it. */
const pingEveryMs = 1_000;

interface LocationAnswers {
  /** The latest time a request had an answer (ms), or -Infinity. */
  lastAnswerAt: number;
  /** Since when the service has answered every request, or undefined while it does not answer. */
  answeringSince: number | undefined;
  /** The latest time a request (or a ping) of this process had no answer, or -Infinity. */
  lastSilenceAt: number;
  pinging: boolean;
  lastPingAt: number;
}

/**
 * Whether the messaging service of each location answers, as this process sees it: any HTTP
 * answer but a 5xx counts (a 400 or a 429 is an answer), a 5xx, a time-out or a network error
 * does not. A send in doubt waits for the status of the send that may have reached the service,
 * and that status cannot come while the service does not answer: so the doubt's grace counts
 * from the first answer after the doubt began (`graceFrom`), and a service frozen for longer
 * than the grace never gets a message twice. When nothing else tells, `graceFrom` asks the
 * service itself (`ping`, at most once a second per location).
 */
export function createServiceAnswers(options: {
  clock: Clock;
  /** One request to the location's service; resolves when it answered. */
  ping?: (location: string) => Promise<void>;
}) {
  const { clock } = options;
  const byLocation = new Map<string, LocationAnswers>();
  const stateOf = (location: string) => {
    let state = byLocation.get(location);
    if (!state) {
      state = {
        lastAnswerAt: Number.NEGATIVE_INFINITY,
        answeringSince: undefined,
        lastSilenceAt: Number.NEGATIVE_INFINITY,
        pinging: false,
        lastPingAt: Number.NEGATIVE_INFINITY,
      };
      byLocation.set(location, state);
    }
    return state;
  };

  const answered = (location: string, at = clock.now()) => {
    const state = stateOf(location);
    state.lastAnswerAt = Math.max(state.lastAnswerAt, at);
    state.answeringSince ??= at;
  };
  const unanswered = (location: string, at = clock.now()) => {
    const state = stateOf(location);
    state.answeringSince = undefined;
    state.lastSilenceAt = Math.max(state.lastSilenceAt, at);
  };

  const ping = (location: string) => {
    const state = stateOf(location);
    const now = clock.now();
    if (!options.ping || state.pinging || now - state.lastPingAt < pingEveryMs) return;
    state.pinging = true;
    state.lastPingAt = now;
    options
      .ping(location)
      .then(
        () => answered(location),
        (error: unknown) => {
          if (answeredAnyway(error)) answered(location);
          else unanswered(location);
        },
      )
      .finally(() => {
        state.pinging = false;
      });
  };

  return {
    /** A request to the location's service had an answer at `at` (now by default). */
    answered,
    /** A request had none: the service timed out, failed with a 5xx or could not be reached. */
    unanswered,
    /** Hears how a request ended: its error (undefined on success) says whether it had an answer. */
    heard(location: string, error?: unknown) {
      if (error === undefined || answeredAnyway(error)) answered(location);
      else if (unansweredBy(error)) unanswered(location);
    },
    /**
     * Whether this process saw the service fail to answer after its last answer: a process that
     * has not asked yet (one just started) does not know, and must not give a message up for it.
     */
    silent(location: string): boolean {
      const state = stateOf(location);
      return state.answeringSince === undefined && state.lastSilenceAt > state.lastAnswerAt;
    },
    /**
     * The time from which the grace of a doubt that began at `since` counts: `since` itself when
     * the service has answered throughout, the first answer after an outage otherwise.
     * Undefined while the service has not answered since `since`: the doubt must go on
     * waiting, and the service is asked (`ping`) so that its return is noticed.
     */
    graceFrom(location: string, since: number): number | undefined {
      const state = stateOf(location);
      if (state.answeringSince !== undefined && state.lastAnswerAt >= since) {
        return Math.max(since, state.answeringSince);
      }
      ping(location);
      return undefined;
    },
  };
}

export type ServiceAnswers = ReturnType<typeof createServiceAnswers>;

/**
 * Whether a failed request still had an answer from the service: an HTTP status below 500
 * (the service said no: a 400, a 401, a 429). A 5xx, a time-out or a network error had none,
 * and an error without a status (a local refusal, a bug) tells nothing either way.
 */
function answeredAnyway(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status < 500;
}

/** A 5xx, or no answer at all (the provider client's `PROVIDER_UNAVAILABLE`: time-out, network). */
function unansweredBy(error: unknown): boolean {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return (typeof status === 'number' && status >= 500) || code === 'PROVIDER_UNAVAILABLE';
}
