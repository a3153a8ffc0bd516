import type { RequestHandler } from 'express';
import { arrivalTime } from './arrival-time.ts';
import { CappedList } from './capped-list.ts';

/** One /v1 request, so tests can measure the request rate and count `POST /sms` calls. */
export interface RequestLogEntry {
  /** Arrival time, ms since the epoch. */
  at: number;
  method: string;
  /** The path without query string, `/v1/sms`. */
  path: string;
  /** The `X-API-KEY-ID` header as sent, even when it matched no key pair. */
  keyId: string | undefined;
  /** The answer's status; 0 while the request is still being answered. */
  status: number;
}

export class RequestLog {
  readonly #entries: CappedList<RequestLogEntry>;

  constructor(capacity = 100_000) {
    this.#entries = new CappedList(capacity);
  }

  /** Records every request on arrival (so `at` is the arrival time) and its status once answered. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const entry: RequestLogEntry = {
        at: arrivalTime(res),
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? req.originalUrl,
        keyId: req.get('x-api-key-id'),
        status: 0,
      };
      this.#entries.push(entry);
      res.on('finish', () => {
        entry.status = res.statusCode;
      });
      next();
    };
  }

  list(): RequestLogEntry[] {
    return this.#entries.toArray().map((entry) => ({ ...entry }));
  }

  clear(): void {
    this.#entries.clear();
  }
}
