import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';

/**
 * Body of `POST /_emulator/faults`. `path` is a method and a path under /v1, where `:name` or `*`
 * matches one segment (`GET /sms/:id`). With neither `count` nor `rate`, one request fails.
 */
export const endpointFaultRequestSchema = z
  .object({
    path: z
      .string()
      .regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, "write it as 'METHOD /path', e.g. 'POST /sms'")
      .default('POST /sms'),
    count: z.number().int().positive().optional(),
    rate: z.number().min(0).max(1).optional(),
    status: z.number().int().min(500).max(599).default(503),
    when: z.enum(['before', 'after']).default('before'),
    /** Hold the answer this long (a slow or hung service: a client's time-out fires first). */
    delayMs: z.number().int().min(0).max(600_000).default(0),
  })
  .transform((fault) =>
    fault.count === undefined && fault.rate === undefined ? { ...fault, count: 1 } : fault,
  );
export type EndpointFault = z.infer<typeof endpointFaultRequestSchema>;

interface ArmedFault {
  fault: EndpointFault;
  method: string;
  pattern: RegExp;
  /** Injections left; undefined when only `rate` bounds it. */
  left: number | undefined;
}

/**
 * 5xx answers injected on /v1 endpoints. `before`: the request is refused and nothing happens.
 * `after`: the request is fully processed (an SMS is created and sent) but its answer is
 * replaced by the 5xx, the ambiguous case where a client cannot know the service got it.
 * `delayMs` holds the answer that long: past the client's time-out, a hung service.
 */
export class EndpointFaults {
  #armed: ArmedFault[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  add(fault: EndpointFault): void {
    const [method = '', path = ''] = fault.path.split(' ');
    this.#armed.push({ fault, method, pattern: pathPattern(path), left: fault.count });
  }

  /** The fault that strikes this request, if any; consumes one of its injections. */
  take(method: string, path: string): EndpointFault | undefined {
    for (const armed of this.#armed) {
      if (armed.method !== method || !armed.pattern.test(path)) continue;
      if (armed.fault.rate !== undefined && this.random() >= armed.fault.rate) continue;
      if (armed.left !== undefined) {
        armed.left -= 1;
        if (armed.left === 0) this.#armed = this.#armed.filter((a) => a !== armed);
      }
      return armed.fault;
    }
    return undefined;
  }

  list(): EndpointFault[] {
    return this.#armed.map((armed) => ({ ...armed.fault, count: armed.left }));
  }

  clear(): void {
    this.#armed = [];
  }

  /** Mount under /v1, after authentication: `req.path` is then relative to /v1. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const fault = this.take(req.method, req.path);
      if (!fault) return next();
      const error = new EmulatorApiError(
        fault.status,
        apiErrorCodes.SERVICE_UNAVAILABLE,
        `the service is temporarily unavailable (fault injected by the emulator, when: ${fault.when})`,
      );
      if (fault.when === 'before') {
        setTimeout(() => next(error), fault.delayMs);
        return;
      }
      replaceAnswer(res, error, fault.delayMs);
      next();
    };
  }
}

/** Lets the route do all its work, then sends `error` in place of whatever it answers. */
function replaceAnswer(res: Response, error: EmulatorApiError, delayMs: number): void {
  const send = res.send;
  res.send = function replaced() {
    res.send = send;
    if (delayMs === 0) return res.status(error.status).json(error.toBody());
    setTimeout(() => {
      // The client may have given up (its time-out) and closed the connection meanwhile.
      if (!res.writableEnded && !res.destroyed) res.status(error.status).json(error.toBody());
    }, delayMs);
    return res;
  };
}

function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') || segment === '*'
        ? '[^/]+'
        : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}/?$`);
}
