import type { CustomColumn } from '../provider/schemas/custom-column.ts';

/** Fixed so that seeded columns look the same on every run. */
const seededAt = '2024-05-15T00:00:00.000Z';

/** One custom column of each type (spec §2.5), so every contact-validation rule can be tried. */
export function defaultCustomColumns(venueId: number): CustomColumn[] {
  const column = (id: number, userLabel: string, type: CustomColumn['type']): CustomColumn => ({
    id,
    venueId,
    userLabel,
    type,
    created_at: seededAt,
    updated_at: seededAt,
    deleted_at: null,
  });
  return [
    column(1, 'appointment', 'DATETIME'),
    column(2, 'loyalty_code', 'CHAR'),
    column(3, 'amount_due', 'DOUBLE'),
  ];
}
