import { type Request, type Response, Router } from 'express';
import type { CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { LocationConfig } from '../app/config.ts';
import { allowLongBody } from '../app/create-hardened-server.ts';
import { ValidationError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { maskPhone, quotedPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import type { Store } from '../store/store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import {
  importSuppressions,
  maxReasonLength,
  type RejectedRow,
} from '../suppressions/import-suppressions.ts';
import { suppressionEvent, wantsEvents } from '../suppressions/suppression-event.ts';
import { writeSuppressions } from '../suppressions/write-suppressions.ts';
import { requestLocation } from './request-location.ts';

export interface SuppressionsRouterOptions {
  store: Store;
  locations: readonly LocationConfig[];
  now(): number;
  logger: Logger;
}

/** The rejected rows an import answers (the count says how many there were in all). */
const rejectedShown = 100;

/** `?location=` (needed when several are configured); `?reason=` of an import's rows with none. */
const querySchema = z.object({
  location: z.string().min(1).max(100).optional(),
  reason: z.string().min(1).max(maxReasonLength).optional(),
});

/**
 * `/admin/suppressions` (mounted behind the admin token): a location's opt-outs in and out.
 * - `POST` with a CSV body (`content-type: text/csv`), streamed into the list, never held whole
 *   and not held to the request timeout (`allowLongBody`: cut when it stalls 30 s):
 *   `{ location, imported, existing, rejected: [{ line, reason }] (the first 100), rejectedCount }`;
 * - `GET`: the list, streamed as CSV (`text/csv`, the default) or JSON lines
 *   (`application/x-ndjson`), per `Accept`;
 * - `DELETE /:phone`: 204, or 404 when the phone is not on the list.
 * `?location=` names the location when several are configured. Numbers are masked in every
 * answer and log line. A location with subscriptions gets an `optout` event for each phone an
 * import adds and an `optin` for a phone removed, queued with the change (issue 24).
 */
export function createSuppressionsRouter(options: SuppressionsRouterOptions): Router {
  const { store, logger } = options;
  const router = Router();

  router.post('/admin/suppressions', async (req, res) => {
    const location = locationOf(req, res);
    if (!location) return;
    if (!req.is('text/csv')) {
      res.status(415).json({ error: 'send the opt-outs as CSV: content-type: text/csv' });
      return;
    }
    // Read at the store's pace, as a campaign's upload: a large list outlasts the server's 8 s
    // request timeout, which would cut it half imported.
    allowLongBody(req);
    const rejected: RejectedRow[] = [];
    try {
      const summary = await importSuppressions(store, req, {
        location: location.config.name,
        source: 'api',
        defaultCountry: location.config.defaultCountry,
        reason: location.reason,
        now: options.now(),
        optoutEvents: wantsEvents(location.config.events, 'optout'),
        onRejected: (row) => {
          if (rejected.length < rejectedShown) rejected.push(row);
        },
      });
      logger.info(
        { location: location.config.name, ...summary },
        'admin suppressions: import done',
      );
      res.json({
        location: location.config.name,
        imported: summary.imported,
        existing: summary.existing,
        rejected,
        rejectedCount: summary.rejected,
      });
    } catch (error) {
      failed(res, error, 'import');
    }
  });

  router.get('/admin/suppressions', async (req, res) => {
    const location = locationOf(req, res);
    if (!location) return;
    const type = req.accepts(['text/csv', 'application/x-ndjson']);
    if (!type) {
      res.status(406).json({ error: 'accept text/csv or application/x-ndjson' });
      return;
    }
    res.status(200).type(type === 'text/csv' ? 'text/csv; charset=utf-8' : type);
    try {
      const format = type === 'text/csv' ? 'csv' : 'ndjson';
      await writeSuppressions(store, location.config.name, res, format);
      res.end();
    } catch (error) {
      if (res.headersSent) {
        // The answer has begun: only a cut stream can say it failed.
        logger.error(
          { err: error, location: location.config.name },
          'admin suppressions: export cut short',
        );
        res.destroy();
        return;
      }
      failed(res, error, 'export');
    }
  });

  router.delete('/admin/suppressions/:phone', async (req, res) => {
    const location = locationOf(req, res);
    if (!location) return;
    const written = String(req.params.phone);
    let phone: string;
    try {
      phone = normalizePhone(written, {
        defaultCountry: location.config.defaultCountry as CountryCode | undefined,
        accept: 'reply',
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      res.status(400).json({
        error: `phone ${quotedPhone(written)} is not a phone number: write it with its country prefix (+33 6 12 34 56 78)`,
        field: 'phone',
      });
      return;
    }
    try {
      const name = location.config.name;
      const optin = wantsEvents(location.config.events, 'optin')
        ? suppressionEvent('optin', name, phone, options.now(), { source: 'api' })
        : undefined;
      const removed = await store.removeSuppression({ location: name, phone }, optin);
      const masked = maskPhone(phone);
      if (!removed) {
        res.status(404).json({
          error: `phone ${masked} is not on the suppression list of '${location.config.name}'`,
        });
        return;
      }
      logger.info(
        { location: location.config.name, conversation: masked },
        'admin suppressions: phone removed from the list',
      );
      res.status(204).end();
    } catch (error) {
      failed(res, error, 'remove');
    }
  });

  /** The request's location (and import reason), or undefined once a 400 is answered. */
  function locationOf(
    req: Request,
    res: Response,
  ): { config: LocationConfig; reason?: string } | undefined {
    const parsed = querySchema.safeParse(req.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      res
        .status(400)
        .json({ error: `${field || 'query'}: ${issue?.message ?? 'is invalid'}`, field });
      return undefined;
    }
    const query = parsed.data;
    const config = requestLocation(options.locations, query.location);
    if (typeof config === 'string') {
      res.status(400).json({ error: config, field: 'location' });
      return undefined;
    }
    return { config, ...(query.reason !== undefined && { reason: query.reason }) };
  }

  function failed(res: Response, error: unknown, doing: string): void {
    if (error instanceof StoreUnavailableError) {
      logger.error({ err: error }, `admin suppressions: ${doing}: store unavailable`);
      // An import cut short is safe to send again: an entry already there is kept as it was.
      res.status(503).json({ error: 'store unavailable, retry later' });
      return;
    }
    if (error instanceof ValidationError) {
      res.status(400).json({ error: error.message, ...(error.field && { field: error.field }) });
      return;
    }
    throw error;
  }

  return router;
}
