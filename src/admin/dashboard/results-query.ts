import { z } from 'zod';

const instant = (field: string, endOfDay: boolean) =>
  z
    .string()
    .max(40)
    .transform((value, ctx) => {
      const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
      const ms = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
      if (Number.isNaN(ms)) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} must be a date (2026-12-01) or an ISO 8601 time (2026-12-01T09:00:00Z)`,
        });
      }
      // A day alone as `to` includes that whole day.
      return dateOnly && endOfDay ? ms + 86_400_000 : ms;
    });

/**
 * The query of `/admin/api/results` and `/admin/api/results.csv`: one bot's results, started in
 * [`from`, `to`] (a `to` written as a day includes it whole), of a location or a campaign.
 * `limit` and `offset` page the JSON (the CSV is streamed whole).
 */
export const resultsQuerySchema = z.object({
  bot: z.string().min(1).max(100),
  location: z.string().min(1).max(100).optional(),
  campaign: z.string().min(1).max(64).optional(),
  from: instant('from', false).optional(),
  to: instant('to', true).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  /** The CSV's phone numbers: masked by default; `full` for the full-access token only. */
  phones: z.enum(['masked', 'full']).default('masked'),
});

export type ResultsRequest = z.infer<typeof resultsQuerySchema>;
