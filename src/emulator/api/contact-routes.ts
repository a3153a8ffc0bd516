import { Router } from 'express';
import { type ContactPayload, findContactIssues } from '../../provider/schemas/contact.ts';
import { createGroupRequestSchema } from '../../provider/schemas/group.ts';
import { addGroup } from '../add-group.ts';
import { authenticatedKeyPair } from '../authenticate.ts';
import { apiErrorCodes, EmulatorApiError, notFound } from '../emulator-api-error.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import type { ContactRecord } from '../location-store.ts';
import { parseRequest } from './parse-request.ts';

/**
 * The contacts side of the service (spec §1.3): `GET /groups`, `POST /groups`,
 * `POST /groups/{groupId}/contacts` and `GET /customColumns` (§2.3–2.5, §4).
 * Groups created here are `source: "user"`, as the listed groups of the spec are.
 */
export function contactRoutes(context: EmulatorContext): Router {
  const router = Router();
  const accountOf = (res: Parameters<typeof authenticatedKeyPair>[0]) =>
    context.locations.get(authenticatedKeyPair(res).location);

  router.get('/groups', (_req, res) => {
    res.json([...accountOf(res).groups.values()]);
  });

  router.post('/groups', (req, res) => {
    const { name } = parseRequest(createGroupRequestSchema, req.body);
    res.status(201).json(addGroup(context, authenticatedKeyPair(res).location, name));
  });

  router.post('/groups/:groupId/contacts', (req, res) => {
    const account = accountOf(res);
    const groupId = Number(req.params.groupId);
    if (!Number.isInteger(groupId) || !account.groups.has(groupId)) {
      throw notFound(`group ${req.params.groupId}`);
    }
    const issues = findContactIssues(req.body, account.columns);
    const [first] = issues;
    if (first) {
      throw new EmulatorApiError(
        400,
        apiErrorCodes.INVALID_CONTACT,
        issues.map((issue) => `${issue.field || 'contact'}: ${issue.message}`).join('; '),
        first.field || undefined,
      );
    }
    const contact: ContactRecord = {
      id: context.locations.nextContactId(),
      groupId,
      ...(req.body as ContactPayload),
    };
    account.contacts.push(contact);
    res.status(201).json(contact);
  });

  router.get('/customColumns', (_req, res) => {
    res.json(accountOf(res).columns);
  });

  return router;
}
