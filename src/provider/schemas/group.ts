import { z } from 'zod';

const isoTimestamp = z.iso.datetime({ offset: true });

/** A contact group (spec §2.3). */
export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  source: z.string(),
});
export type Group = z.infer<typeof groupSchema>;

/** Body of `POST /groups`. The spec does not show it; `{ name }` is our documented assumption. */
export const createGroupRequestSchema = z.object({ name: z.string().trim().min(1).max(255) });
export type CreateGroupRequest = z.infer<typeof createGroupRequestSchema>;
