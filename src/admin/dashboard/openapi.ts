import { z } from 'zod';
import { createCampaignRequestSchema } from '../../campaigns/create-campaign.ts';
import { startRequestSchema } from '../start-with-policy.ts';
import { inStateQuerySchema } from './in-state-query.ts';
import { loginSchema } from './login-routes.ts';
import { resultsQuerySchema } from './results-query.ts';

/** One JSON route under `/admin`, as the OpenAPI document lists it. */
export interface ApiRoute {
  method: 'get' | 'post' | 'delete';
  /** Express's form: `/admin/campaigns/:name`. */
  path: string;
  summary: string;
  /** Query parameters. */
  query?: z.ZodObject;
  /** The body: a JSON schema, or a media type the route streams (`text/csv`). */
  body?: { schema: z.ZodType; types?: string[] } | { types: string[] };
  /** Status → what it means. */
  responses: Record<string, string>;
}

const location = z.object({
  location: z.string().min(1).max(100).optional().describe('needed when several are configured'),
});
const refused = { '401': 'no or wrong credential', '403': 'read-only token, or CSRF refused' };
const unknownBot = { '404': 'unknown location or bot' };
const campaignActions = ['pause', 'resume', 'cancel'] as const;

/**
 * Every JSON route under `/admin` (test/unit/admin/openapi-coverage.test.ts checks it against
 * the mounted routes, both ways). The query schemas are the routes' own where they export them;
 * the others are copied from the routers, whose schemas stay private to them.
 */
export const apiRoutes: readonly ApiRoute[] = [
  {
    method: 'post',
    path: '/admin/conversations',
    summary: "Start a bot's conversation now or at its time (with a key)",
    body: { schema: startRequestSchema },
    responses: {
      '202': 'started or scheduled',
      '400': 'invalid field',
      '409': 'opted out, skipped or past due',
      ...refused,
    },
  },
  {
    method: 'delete',
    path: '/admin/conversations/scheduled/:key',
    summary: 'Cancel a scheduled start that has not fired',
    query: location,
    responses: {
      '200': 'cancelled',
      '404': 'no such start',
      '409': 'already started, skipped or failed',
      ...refused,
    },
  },
  {
    method: 'post',
    path: '/admin/suppressions',
    summary: 'Import opt-outs from a CSV (streamed)',
    query: location.extend({ reason: z.string().min(1).optional() }),
    body: { types: ['text/csv'] },
    responses: { '200': '{location, imported, existing, rejected, rejectedCount}', ...refused },
  },
  {
    method: 'get',
    path: '/admin/suppressions',
    summary: 'The suppression list, CSV or JSON lines per Accept (phones masked)',
    query: location,
    responses: { '200': 'text/csv or application/x-ndjson', ...refused },
  },
  {
    method: 'delete',
    path: '/admin/suppressions/:phone',
    summary: 'Remove a phone from the suppression list',
    query: location,
    responses: { '204': 'removed', '404': 'not on the list', ...refused },
  },
  {
    method: 'post',
    path: '/admin/campaigns',
    summary: 'Create a campaign, import it again, or a dry run; the recipient file is the body',
    // Its fields without the refinements (omit refuses those): the type comes from content-type.
    query: z.object(createCampaignRequestSchema.shape).omit({ format: true, fileName: true }),
    body: { types: ['text/csv', 'application/x-ndjson'] },
    responses: {
      '200': 'imported again, or a dry run',
      '201': 'created',
      '400': 'invalid field',
      '404': 'unknown bot',
      '409': 'conflict',
      '415': 'not CSV or JSON lines',
      ...refused,
    },
  },
  {
    method: 'get',
    path: '/admin/campaigns',
    summary: 'The campaigns with their recipients per state',
    query: location.extend({ all: z.enum(['true', 'false']).optional() }),
    responses: { '200': '{campaigns}', ...refused },
  },
  {
    method: 'get',
    path: '/admin/campaigns/:name',
    summary: "A campaign's definition, recipients per state and funnel",
    query: location,
    responses: { '200': '{campaign, …}', '404': 'no such campaign', ...refused },
  },
  ...campaignActions.map(
    (action): ApiRoute => ({
      method: 'post',
      path: `/admin/campaigns/:name/${action}`,
      summary: `${action[0]!.toUpperCase()}${action.slice(1)} a campaign`,
      query: location,
      responses: {
        '200': '{campaign}',
        '404': 'no such campaign',
        '409': 'not possible now',
        ...refused,
      },
    }),
  ),
  {
    method: 'get',
    path: '/admin/campaigns/:name/results',
    summary: "The results of a campaign's conversations (CSV or JSON)",
    query: location.extend({ format: z.enum(['csv', 'json']).optional() }),
    responses: { '200': 'text/csv or a JSON array', '404': 'no such campaign', ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/campaigns/:location/:name/progress',
    summary: "A campaign's funnel hour by hour (UTC): started, sent, delivered, answered, ended",
    responses: {
      '200': '{hours: [{hour, started, sent, delivered, answered, completed, opted_out, …}]}',
      '400': 'invalid name',
      '404': 'unknown location, or no such campaign',
      ...refused,
    },
  },
  {
    method: 'post',
    path: '/admin/login',
    summary: 'Log in to the dashboard with either admin token: sets the session cookie',
    body: { schema: loginSchema, types: ['application/json', 'application/x-www-form-urlencoded'] },
    responses: {
      '200': '{role, csrfToken} (JSON)',
      '303': 'to /admin (a form)',
      '401': 'wrong token',
      '429': 'too many failed logins',
    },
  },
  {
    method: 'post',
    path: '/admin/logout',
    summary: 'Log out: clears the session cookie',
    responses: { '200': '{loggedOut: true}', ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/session',
    summary: "The caller's role and, with a session cookie, its CSRF token",
    responses: { '200': '{role, via, csrfToken?}', ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/overview',
    summary:
      'Per location and bot: active now, today, 7 days and total; the campaigns and their progress',
    responses: { '200': '{at, locations, bots, campaigns}', ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/results',
    summary: "A page of a bot's results, phones masked",
    query: resultsQuerySchema.omit({ phones: true }),
    responses: { '200': '{results, offset, next?}', '400': 'invalid field', ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/results.csv',
    summary:
      "A bot's results as CSV, streamed (phones masked; whole with phones=full, full-access token only)",
    query: resultsQuerySchema.omit({ limit: true, offset: true }),
    responses: {
      '200': 'text/csv',
      '400': 'invalid field',
      ...refused,
      '403': 'phones=full with the read-only token, or CSRF refused',
    },
  },
  {
    method: 'get',
    path: '/admin/api/bots/:location/:bot/statechart',
    summary: "A bot's statechart laid out for drawing: states and transitions with their geometry",
    responses: { '200': '{bot, version, width, height, nodes, edges}', ...unknownBot, ...refused },
  },
  {
    method: 'get',
    path: '/admin/api/bots/:location/:bot/funnel',
    summary:
      "A bot's live funnel: conversations per state now, transitions taken (and on which edge), drop-offs",
    responses: {
      '200': '{active, transitions, dropOffs, edges, other} (periods today, week, total)',
      ...unknownBot,
      ...refused,
    },
  },
  {
    method: 'get',
    path: '/admin/api/bots/:location/:bot/conversations',
    summary: "A bot's active conversations in a state (phones masked), by a bounded scan",
    query: inStateQuerySchema,
    responses: {
      '200': '{conversations: [{ref, phone, state, startedAt, updatedAt}], cursor, partial}',
      '400': 'invalid field',
      ...unknownBot,
      ...refused,
    },
  },
  {
    method: 'get',
    path: '/admin/api/conversations/:ref',
    summary:
      "A conversation's transcript, timers, result and end code (phone whole for the full-access token only)",
    responses: {
      '200': '{location, phone, conversation, entries}',
      '404': 'no such conversation',
      ...refused,
    },
  },
  {
    method: 'get',
    path: '/admin/openapi.json',
    summary: 'This document',
    responses: { '200': 'OpenAPI 3.1', ...refused },
  },
];
