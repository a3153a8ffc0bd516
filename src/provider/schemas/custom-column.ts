import { z } from 'zod';

const isoTimestamp = z.iso.datetime({ offset: true });

export const customColumnTypeSchema = z.enum(['DATETIME', 'CHAR', 'DOUBLE']);
export type CustomColumnType = z.infer<typeof customColumnTypeSchema>;

/** A custom column (spec §2.5), read-only. Its `id` is the key name in a contact payload. */
export const customColumnSchema = z.object({
  id: z.number().int(),
  venueId: z.number().int(),
  userLabel: z.string(),
  type: customColumnTypeSchema,
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  deleted_at: isoTimestamp.nullable(),
});
export type CustomColumn = z.infer<typeof customColumnSchema>;
