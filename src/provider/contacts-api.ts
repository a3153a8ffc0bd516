import { z } from 'zod';
import { errorCodes, ValidationError } from '../errors.ts';
import type { CustomColumnsCache } from './custom-columns-cache.ts';
import type { ProviderTransport } from './provider-transport.ts';
import type { WarningSink } from './provider-warning.ts';
import {
  type ContactIssue,
  type ContactPayload,
  customColumnKeyPattern,
  findContactIssues,
  isRoundedInCampaigns,
} from './schemas/contact.ts';
import type { CustomColumn } from './schemas/custom-column.ts';

export interface ContactsApi {
  /**
   * Adds a contact to a group (`POST /groups/{groupId}/contacts`). The payload is checked first
   * against the fixed fields and the account's custom columns (`GET /customColumns`, cached):
   * an unknown field, a wrong type or a DATETIME that is not ISO 8601 is refused before any
   * request. A DOUBLE with more than 2 decimals is sent, with a warning that campaigns round it.
   * Not retried: a repeat could add the contact twice.
   *
   * @example
   * await client.contacts.add(12, {
   *   contactEmailAddress: 'ana@example.com',
   *   contactFirstName: 'Ana',
   *   '7': 'gold', // CHAR custom column 7
   *   '8': '2026-11-21T09:30:00Z', // DATETIME custom column 8
   * });
   */
  add(
    groupId: number,
    contact: ContactPayload,
    /** `bulk`: an update the bot made on its own, which waits behind answers (`ProviderCall.bulk`). */
    options?: { roundDoubles?: boolean; bulk?: boolean },
  ): Promise<unknown>;
}

export interface ContactsApiDeps {
  location: string;
  transport: ProviderTransport;
  columns: CustomColumnsCache;
  warn: WarningSink;
}

export function createContactsApi(deps: ContactsApiDeps): ContactsApi {
  return {
    async add(groupId, contact, options = {}) {
      if (!Number.isSafeInteger(groupId) || groupId < 0) {
        throw new ValidationError(
          errorCodes.INVALID_CONTACT,
          `group id ${groupId} is not a group id: use the integer id from groups.list()`,
          'groupId',
        );
      }
      const columns = await checkContact(contact, deps.columns);
      const body: Record<string, unknown> = { ...contact };
      for (const [key, value] of Object.entries(contact)) {
        if (
          customColumnKeyPattern.test(key) &&
          typeof value === 'number' &&
          isRoundedInCampaigns(value)
        ) {
          const column = columns.find((c) => String(c.id) === key);
          deps.warn({
            code: 'DOUBLE_ROUNDED_IN_CAMPAIGNS',
            location: deps.location,
            field: key,
            message: `custom column ${key} ('${column?.userLabel ?? '?'}', DOUBLE) gets ${value}, which campaigns round to ${value.toFixed(2)} (the service treats DOUBLE values as euro amounts)${options.roundDoubles ? '; sent rounded' : ''}`,
          });
          if (options.roundDoubles) body[key] = Math.round(value * 100) / 100;
        }
      }
      return deps.transport.request({
        method: 'POST',
        path: `/groups/${groupId}/contacts`,
        body,
        schema: z.unknown(),
        ...(options.bulk && { bulk: true }),
      });
    },
  };
}

/**
 * Refuses an invalid payload with every issue listed. A column id unknown to a cached list is
 * checked once more against a fresh one, since a column created in the dashboard a minute ago
 * is not a mistake.
 */
async function checkContact(
  contact: ContactPayload,
  cache: CustomColumnsCache,
): Promise<CustomColumn[]> {
  let { columns, fetched } = await cache.get();
  let issues = findContactIssues(contact, columns);
  if (!fetched && issues.some((issue) => isUnknownColumn(issue, columns))) {
    columns = await cache.refresh();
    issues = findContactIssues(contact, columns);
  }
  if (issues.length > 0) {
    throw new ValidationError(
      errorCodes.INVALID_CONTACT,
      `the contact cannot be added: ${issues.map((i) => `${i.field || '(payload)'}: ${i.message}`).join('; ')}`,
      issues[0]?.field ? `contact.${issues[0].field}` : 'contact',
    );
  }
  return columns;
}

function isUnknownColumn(issue: ContactIssue, columns: readonly CustomColumn[]): boolean {
  return (
    customColumnKeyPattern.test(issue.field) &&
    !columns.some((c) => String(c.id) === issue.field && c.deleted_at === null)
  );
}
