import { beforeAll, describe, expect, it } from 'vitest';
import type { BotRegistry } from '../../../src/bot/bot-registry.ts';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import type { ConversationRecord, MailboxEvent } from '../../../src/store/records.ts';

const key = { location: 'paris', phone: '33612345678' };
const start: MailboxEvent = {
  v: 1,
  id: 's:0',
  kind: 'start',
  ...key,
  receivedAt: 0,
  botId: 'kit-survey',
  input: {},
};
const answer = (id: string): MailboxEvent => ({
  v: 1,
  id,
  kind: 'reply',
  ...key,
  receivedAt: 0,
  body: 'yes',
  originSmsId: 'x',
  to: '38200',
});
const step = (event: MailboxEvent, record: ConversationRecord | null, registry: BotRegistry) =>
  runStep({ event, record, message: null, registry, now: 1_000, newRunId: () => 'run-1' });

describe('a live conversation across a new definition of its bot', () => {
  let v1: BotRegistry;
  let atQ2: ConversationRecord;
  beforeAll(async () => {
    v1 = await loadBots('test/fixtures/versions/v1');
    const started = step(start, null, v1).commit.record!;
    atQ2 = step(answer('r:1'), started, v1).commit.record!;
    expect((atQ2.snapshot as { value: unknown }).value).toBe('q2');
  });

  it('goes on when only its texts changed: the same version, the new texts', async () => {
    const texts = await loadBots('test/fixtures/versions/v1-text');
    expect(texts.bots.get('kit-survey')!.version).toBe(v1.bots.get('kit-survey')!.version);
    expect(texts.bots.get('kit-survey')!.contentVersion).not.toBe(
      v1.bots.get('kit-survey')!.contentVersion,
    );
    const { commit, outcome } = step(answer('r:2'), atQ2, texts);
    expect(outcome.ended).toBeUndefined();
    expect(outcome.route).toBe('deliver');
    expect(commit.outbound.map((m) => m.body)).toEqual(['Thank you.']);
    expect(commit.record).toMatchObject({ runId: atQ2.runId, status: 'done' });
  });

  it('ends with version_changed when a state it uses was renamed and there is no migrate', async () => {
    const renamed = await loadBots('test/fixtures/versions/v2-renamed');
    expect(renamed.bots.get('kit-survey')!.version).not.toBe(v1.bots.get('kit-survey')!.version);
    const { outcome } = step(answer('r:2'), atQ2, renamed);
    expect(outcome.ended).toMatchObject({ code: 'version_changed', botId: 'kit-survey' });
  });

  it('resumes a conversation saved before versions were structural (its version was the whole hash)', () => {
    const bot = v1.bots.get('kit-survey')!;
    const legacy = { ...atQ2, botVersion: bot.contentVersion };
    const { commit, outcome } = step(answer('r:2'), legacy, v1);
    expect(outcome.ended).toBeUndefined();
    expect(commit.record).toMatchObject({ runId: atQ2.runId, botVersion: bot.version });
  });
});
