import { describe, expect, it } from 'vitest';
import type { ConversationResult } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  location,
  phonesInDistinctPartitions,
  startEvent,
  t0,
} from './fixtures.ts';

function result(phone: string, runId: string, startedAt: number, fields = {}): ConversationResult {
  return {
    v: 1,
    location,
    phone,
    runId,
    bot: 'survey',
    botVersion: 'abc',
    startedAt,
    fields,
  };
}

/** Commits a start event whose step writes `results`. */
async function commitResults(
  store: Store,
  phone: string,
  id: string,
  results: ConversationResult[],
) {
  await store.ingest(`n-${id}`, [{ event: startEvent(id, phone) }], t0);
  const claim = await claimOf(store, 'inbox', phone, t0);
  const seq = claim.view.record?.seq ?? 0;
  const committed = await store.commitStep(
    claim,
    {
      eventId: id,
      expectedSeq: seq,
      record: conversationRecord(phone, seq + 1),
      outbound: [],
      results,
    },
    t0,
  );
  expect(committed.ok).toBe(true);
}

async function all(store: Store, botId: string, query?: Parameters<Store['listResults']>[1]) {
  const found: ConversationResult[] = [];
  for await (const batch of store.listResults(botId, query)) found.push(...batch);
  return found;
}

export function resultContract(store: () => Store): void {
  describe('results', () => {
    it('keeps each run’s latest result with the commit, across runs of a phone, listed by bot, since a time and by location', async () => {
      const [a = '', b = ''] = phonesInDistinctPartitions(store(), 2);
      const bot = `survey-${Math.random().toString(36).slice(2, 8)}`;
      const mine = (r: ConversationResult) => ({ ...r, bot });
      await commitResults(store(), a, 'e-1', [mine(result(a, 'run-a1', t0))]);
      await commitResults(store(), a, 'e-2', [
        mine({ ...result(a, 'run-a1', t0, { score: 7 }), endedAt: t0 + 5, endCode: 'final' }),
        mine(result(a, 'run-a2', t0 + 10)),
      ]);
      await commitResults(store(), b, 'e-3', [
        mine({ ...result(b, 'run-b1', t0 + 20), location: 'lyon' }),
      ]);

      const found = await all(store(), bot);
      expect(found).toHaveLength(3);
      expect(found.find((r) => r.runId === 'run-a1')).toEqual(
        mine({ ...result(a, 'run-a1', t0, { score: 7 }), endedAt: t0 + 5, endCode: 'final' }),
      );
      expect((await all(store(), bot, { since: t0 + 10 })).map((r) => r.runId).sort()).toEqual([
        'run-a2',
        'run-b1',
      ]);
      expect((await all(store(), bot, { location: 'lyon' })).map((r) => r.runId)).toEqual([
        'run-b1',
      ]);
      expect(await all(store(), 'no-such-bot')).toEqual([]);
    });
  });
}
