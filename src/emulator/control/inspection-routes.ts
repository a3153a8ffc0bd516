import { Router } from 'express';
import type { EmulatorContext } from '../emulator-context.ts';

/** The control API routes that show what happened: messages, balances, contacts, logs and live events. */
export function inspectionRoutes(context: EmulatorContext): Router {
  const router = Router();

  router.get('/messages', (req, res) => {
    res.json(
      context.messages.list({ to: query(req.query.to), location: query(req.query.location) }),
    );
  });

  router.get('/locations/:location/balance', (req, res) => {
    res.json({
      location: req.params.location,
      balance: context.locations.get(req.params.location).balance,
    });
  });

  // The contacts each location's groups received (`POST /groups/{id}/contacts`), oldest first.
  router.get('/locations/:location/contacts', (req, res) => {
    res.json(context.locations.get(req.params.location).contacts);
  });

  router.get('/deliveries', (req, res) => {
    res.json(context.deliveryLog.list({ notificationId: query(req.query.notificationId) }));
  });

  router.get('/requests', (req, res) => {
    const method = query(req.query.method);
    const path = query(req.query.path);
    res.json(
      context.requestLog
        .list()
        .filter((entry) => method === undefined || entry.method === method)
        .filter((entry) => path === undefined || entry.path === path),
    );
  });

  router.get('/events', (_req, res) => {
    context.events.subscribe(res);
  });

  return router;
}

/** A single string query parameter, or undefined. */
function query(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
