import { z } from 'zod';
import { errorCodes, ValidationError } from '../errors.ts';
import type { ProviderCall, ProviderTransport } from './provider-transport.ts';
import { createGroupRequestSchema, type Group, groupSchema } from './schemas/group.ts';

export interface GroupsApi {
  /**
   * Lists the account's contact groups (`GET /groups`), retried on transient failures.
   *
   * @example
   * const groups = await client.groups.list();
   * const vip = groups.find((g) => g.name === 'VIP');
   */
  list(): Promise<Group[]>;
  /**
   * Creates a group (`POST /groups` with `{ name }`, our assumption: the spec does not show the
   * payload). Not retried, since a repeat would create a second group.
   *
   * @example
   * const group = await client.groups.create('Survey 2026');
   * await client.contacts.add(group.id, { contactEmailAddress: 'ana@example.com' });
   */
  create(name: string): Promise<Group>;
}

export interface GroupsApiDeps {
  transport: ProviderTransport;
  idempotent<T>(call: ProviderCall<T>): Promise<T>;
}

const groupListSchema = z.array(groupSchema);

export function createGroupsApi(deps: GroupsApiDeps): GroupsApi {
  return {
    list() {
      return deps.idempotent({ method: 'GET', path: '/groups', schema: groupListSchema });
    },
    async create(name) {
      const parsed = createGroupRequestSchema.safeParse({ name });
      if (!parsed.success) {
        throw new ValidationError(
          errorCodes.INVALID_GROUP,
          `group name '${name}' cannot be used: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
          'name',
        );
      }
      return deps.transport.request({
        method: 'POST',
        path: '/groups',
        body: parsed.data,
        schema: groupSchema,
      });
    },
  };
}
