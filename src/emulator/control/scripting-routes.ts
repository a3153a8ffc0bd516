import { Router } from 'express';
import { z } from 'zod';
import { parseRequest } from '../api/parse-request.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import { endpointFaultRequestSchema } from '../endpoint-faults.ts';
import { nextFailureRequestSchema } from '../next-failures.ts';
import { simulateReply, simulateReplyRequestSchema } from '../simulate-reply.ts';
import { webhookFaultRequestSchema } from '../webhook-faults.ts';

const balanceRequestSchema = z.object({ balance: z.number().finite() });
const outcomeRequestSchema = z.object({
  outcome: z.enum(['delivered', 'expired', 'invalid', 'silent']),
});
/** `null` lifts the limit (JSON has no Infinity). */
const rateLimitRequestSchema = z.object({ perSecond: z.number().positive().nullable() });

/** The control API routes that change what the emulated world does next. */
export function scriptingRoutes(context: EmulatorContext): Router {
  const router = Router();

  router.post('/replies', (req, res) => {
    const result = simulateReply(
      { ...context, shortCode: context.config.shortCode },
      parseRequest(simulateReplyRequestSchema, req.body),
    );
    res.status(result.notified ? 201 : 200).json(result);
  });

  router.put('/locations/:location/balance', (req, res) => {
    const { balance } = parseRequest(balanceRequestSchema, req.body);
    context.locations.get(req.params.location).balance = balance;
    res.json({ location: req.params.location, balance });
  });

  router.put('/outcomes/:phone', (req, res) => {
    const { outcome } = parseRequest(outcomeRequestSchema, req.body);
    context.outcomes.set(req.params.phone, outcome);
    res.json({ phone: req.params.phone, outcome });
  });

  router.post('/next-failures', (req, res) => {
    const { phone, reason } = parseRequest(nextFailureRequestSchema, req.body);
    context.nextFailures.arm(phone, reason);
    res.status(201).json({ phone, reason });
  });

  router.get('/next-failures', (_req, res) => {
    res.json(context.nextFailures.list());
  });

  router.delete('/next-failures', (_req, res) => {
    context.nextFailures.clear();
    res.status(204).send();
  });

  router.post('/webhook-faults', (req, res) => {
    const fault = parseRequest(webhookFaultRequestSchema, req.body);
    context.webhookFaults.add(fault);
    res.status(201).json(fault);
  });

  router.get('/webhook-faults', (_req, res) => {
    res.json(context.webhookFaults.list());
  });

  router.delete('/webhook-faults', (_req, res) => {
    context.webhookFaults.clear();
    res.status(204).send();
  });

  router.post('/faults', (req, res) => {
    const fault = parseRequest(endpointFaultRequestSchema, req.body);
    context.endpointFaults.add(fault);
    res.status(201).json(fault);
  });

  router.get('/faults', (_req, res) => {
    res.json(context.endpointFaults.list());
  });

  router.delete('/faults', (_req, res) => {
    context.endpointFaults.clear();
    res.status(204).send();
  });

  router.put('/rate-limit', (req, res) => {
    const { perSecond } = parseRequest(rateLimitRequestSchema, req.body);
    context.rateLimiter.perSecond = perSecond ?? Number.POSITIVE_INFINITY;
    res.json({ perSecond });
  });

  router.post('/reset', (_req, res) => {
    context.reset();
    res.status(204).send();
  });

  return router;
}
