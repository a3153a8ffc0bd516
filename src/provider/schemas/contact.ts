import { z } from 'zod';
import type { CustomColumn } from './custom-column.ts';

const isoDateTime = z.iso.datetime({ offset: true, local: true });

/** The fixed fields of a contact payload (spec §2.4). Custom columns are checked separately. */
export const contactFieldsSchema = z.object({
  contactEmailAddress: z.email().optional(),
  contactPhoneNumber: z.string().min(1).optional(),
  contactFirstName: z.string().optional(),
  contactLastName: z.string().optional(),
  contactSubscribed: z.boolean().optional(),
  contactBirthday: isoDateTime.optional(),
});

/** A contact payload: the fixed fields, plus custom-column values keyed by the column's numeric id. */
export type ContactPayload = z.infer<typeof contactFieldsSchema> & {
  [customColumnId: `${number}`]: string | number;
};

/** A key is a custom-column key when it is a non-negative integer written as a string. */
export const customColumnKeyPattern = /^\d+$/;

export interface ContactIssue {
  /** The offending key of the payload (`contactBirthday`, `12`). */
  field: string;
  message: string;
}

/**
 * Checks a contact payload against the fixed fields and the account's custom columns.
 * Returns every problem found, each naming its field; an empty list means the payload is valid.
 * Shared by the emulator (which answers 400) and the client (which refuses before sending).
 */
export function findContactIssues(
  payload: unknown,
  columns: readonly CustomColumn[],
): ContactIssue[] {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return [{ field: '', message: 'the contact payload must be a JSON object' }];
  }
  const issues: ContactIssue[] = [];
  const fixed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (customColumnKeyPattern.test(key)) {
      const issue = checkCustomValue(key, value, columns);
      if (issue) issues.push(issue);
    } else if (key in contactFieldsSchema.shape) {
      fixed[key] = value;
    } else {
      issues.push({
        field: key,
        message: `unknown contact field '${key}': use one of ${Object.keys(contactFieldsSchema.shape).join(', ')} or a custom column id`,
      });
    }
  }
  const parsed = contactFieldsSchema.safeParse(fixed);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.push({ field: issue.path.join('.'), message: issue.message });
    }
  }
  return issues;
}

function checkCustomValue(
  key: string,
  value: unknown,
  columns: readonly CustomColumn[],
): ContactIssue | undefined {
  const column = columns.find((c) => String(c.id) === key && c.deleted_at === null);
  if (!column) {
    return { field: key, message: `no custom column has id ${key}` };
  }
  const label = `custom column ${key} ('${column.userLabel}', ${column.type})`;
  switch (column.type) {
    case 'CHAR':
      return typeof value === 'string'
        ? undefined
        : { field: key, message: `${label} takes a string` };
    case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : { field: key, message: `${label} takes a number` };
    case 'DATETIME':
      return typeof value === 'string' && isoDateTime.safeParse(value).success
        ? undefined
        : {
            field: key,
            message: `${label} takes an ISO 8601 date-time such as 2026-11-21T09:30:00Z`,
          };
  }
}

/** True when a DOUBLE value has more than two decimals, which campaigns round (spec §2.5). */
export function isRoundedInCampaigns(value: number): boolean {
  return Math.abs(value * 100 - Math.round(value * 100)) > 1e-9;
}
