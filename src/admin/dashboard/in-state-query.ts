import { z } from 'zod';
import { inStateCursor } from './list-conversations-in-state.ts';

/** `GET /admin/api/bots/:location/:bot/conversations`'s query. */
export const inStateQuerySchema = z.object({
  state: z.string().min(1).max(300).optional().describe('a state path; its descendants count too'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().regex(inStateCursor).optional().describe('the cursor of the previous answer'),
});
