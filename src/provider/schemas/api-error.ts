import { z } from 'zod';

/**
 * The one JSON shape of the emulator's error bodies. The spec does not show the service's;
 * the client reads `error.message` when present and keeps the raw body otherwise.
 */
export const apiErrorBodySchema = z.object({
  error: z.object({
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
