import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis } from '../../support/redis.ts';

// The scripts' text readers of flat JSON (lib/json-field.lua and the readers built on it),
// run in Redis's own Lua against `cjson.decode` of the same JSON: what they read as text must
// be what decoding gives, or nil (the caller decodes then), whatever the values hold.
const lib = (file: string) =>
  readFileSync(new URL(`../../../src/store/redis/scripts/lib/${file}`, import.meta.url), 'utf8');

const redis = connectTestRedis();
afterAll(() => redis.quit());

/** `outboxMessageOf(ARGV[1])`'s fields and the decoded message's, as JSON ([read, decoded]). */
const readOutboxMessage = `${lib('json-field.lua')}
${lib('outbox-message.lua')}
local json = ARGV[1]
local read = outboxMessageOf(json)
local decoded = cjson.decode(json)
local function fields(m)
  return {m.id or false, m.body or false, m.compliance or false, m.holdUntil or false,
    m.inDoubtSince or false, m.inDoubtUntil or false,
    type(m.loopGuard) == 'table' and {m.loopGuard.max, m.loopGuard.windowMs} or false}
end
return cjson.encode({fields(read), fields(decoded)})`;

/** `eventSmsId(ARGV[1], ARGV[2])` and `replyBodyJson(ARGV[1])`, false for nil. */
const readEvent = `${lib('json-field.lua')}
${lib('event-start.lua')}
return cjson.encode({eventSmsId(ARGV[1], ARGV[2]) or false, replyBodyJson(ARGV[1]) or false})`;

const base = {
  v: 1,
  location: 'paris',
  phone: '33612345678',
  id: 'e-1:0',
  runId: 'run-1',
  botId: 'survey',
  body: 'Rate us from 1 to 5',
  queuedAt: 1_763_700_000_000,
  attempts: 0,
};

describe('the scripts read flat JSON fields as text as cjson decodes them', () => {
  const messages: Record<string, Record<string, unknown>> = {
    'a plain message': base,
    'every optional field': {
      ...base,
      compliance: 'opt-out',
      holdUntil: 1_763_700_360_000,
      inDoubtSince: 1_763_700_001_000,
      inDoubtUntil: 1.7637e12,
      loopGuard: { max: 5, windowMs: 60_000 },
    },
    'keys in another order': { holdUntil: 12, body: 'hi', attempts: 1, id: 'x', v: 1 },
    'a body naming other keys': {
      ...base,
      body: 'id":"fake" holdUntil":99 compliance":"help" runId":"r"',
      holdUntil: 7,
    },
    'a body holding quotes': { ...base, body: 'say "YES", or "id":"no"' },
    'an id holding a quote': { ...base, id: 'e-"1":0' },
    'a key that ends like another': { ...base, xholdUntil: 5, runId: 'id' },
    'an empty body': { ...base, body: '' },
  };
  for (const [name, message] of Object.entries(messages)) {
    it(`an outbox message: ${name}`, async () => {
      const answer = await redis.eval(readOutboxMessage, 0, JSON.stringify(message));
      const [read, decoded] = JSON.parse(String(answer)) as unknown[][];
      expect(read).toEqual(decoded);
    });
  }

  it('a mailbox event: its sms id and its body', async () => {
    const event = (fields: Record<string, unknown>) =>
      JSON.stringify({ id: 'r-1', kind: 'reply', receivedAt: 1, ...fields });
    const cases: [string, string, unknown[]][] = [
      [event({ originSmsId: 'sms-9', body: 'YES' }), 'reply', ['sms-9', '"YES"']],
      [event({ body: 'smsId":"a" originSmsId":"b"', originSmsId: 'c' }), 'reply', ['c', false]],
      [event({ originSmsId: 'sms-9', body: 'say "YES"' }), 'reply', ['sms-9', false]],
      [event({ kind: 'status', smsId: 's-1', originSmsId: 'o-1' }), 'status', ['s-1', false]],
      [event({ kind: 'status' }), 'status', [false, false]],
    ];
    for (const [json, kind, expected] of cases) {
      expect(JSON.parse(String(await redis.eval(readEvent, 0, json, kind)))).toEqual(expected);
    }
  });
});
