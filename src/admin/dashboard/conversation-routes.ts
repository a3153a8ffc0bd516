import { Router } from 'express';
import type { LocationConfig } from '../../app/config.ts';
import { maskPhone } from '../../observability/mask-phone.ts';
import { maskPhonesInText } from '../../observability/mask-phones-in-text.ts';
import type { Store } from '../../store/store.ts';
import type { Transcript } from '../../store/transcript.ts';
import type { ConversationRefs } from './conversation-refs.ts';
import type { AdminAccess } from './require-admin-access.ts';
import { sendFile } from './serve-page.ts';

export interface ConversationRoutesOptions {
  store: Store;
  locations: readonly LocationConfig[];
  refs: ConversationRefs;
  csrfOf(access: AdminAccess | undefined): string;
}

const notFound = { error: 'no such conversation (the reference is unknown, altered or expired)' };

/**
 * A conversation's page, `GET /admin/conversations/:ref` (`page/conversation.html`), and its
 * transcript, `GET /admin/api/conversations/:ref` (`store.readTranscript`): every message in
 * and out with its status, reason, parts, encoding and price, the state after each step, the
 * timers pending, the result and the end code. `ref` is sealed (`conversation-refs.ts`): 404
 * for one that does not open. The phone is whole for the full-access token only; for the
 * read-only one it is masked, and so are phone numbers in the texts and the result.
 */
export function conversationRoutes(options: ConversationRoutesOptions): Router {
  const router = Router();

  router.get('/admin/conversations/:ref', (_req, res) => {
    sendFile(res, 'conversation.html', { csrf: options.csrfOf(res.locals.adminAccess) });
  });

  router.get('/admin/api/conversations/:ref', async (req, res) => {
    const key = options.refs.open(req.params.ref);
    const configured = key && options.locations.some((l) => l.name === key.location);
    const transcript = configured ? await options.store.readTranscript(key) : null;
    if (!transcript) {
      res.status(404).json(notFound);
      return;
    }
    const access = res.locals.adminAccess as AdminAccess | undefined;
    const shown = access?.role === 'full' ? transcript : masked(transcript);
    res.set('cache-control', 'no-store').json({
      ref: req.params.ref,
      masked: shown !== transcript,
      ...shown,
    });
  });

  return router;
}

function masked(transcript: Transcript): Transcript {
  const { conversation } = transcript;
  return {
    ...transcript,
    phone: maskPhone(transcript.phone),
    conversation: conversation && {
      ...conversation,
      // A keyed start's run id may be made of the phone.
      runId: maskPhonesInText(conversation.runId),
      result: Object.fromEntries(
        Object.entries(conversation.result).map(([name, value]) => [
          name,
          typeof value === 'string' ? maskPhonesInText(value) : value,
        ]),
      ),
    },
    entries: transcript.entries.map((entry) => ({ ...entry, body: maskPhonesInText(entry.body) })),
  };
}
