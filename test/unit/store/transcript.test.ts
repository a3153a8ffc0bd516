import { describe, expect, it } from 'vitest';
import { statePath } from '../../../src/conversation/state-path.ts';
import type { ConversationRecord, MessageRecord } from '../../../src/store/records.ts';
import { buildTranscript, transcriptState } from '../../../src/store/transcript.ts';

const key = { location: 'paris', phone: '33612345678' };
const record: ConversationRecord = {
  v: 1,
  ...key,
  runId: 'run-2',
  botId: 'survey',
  botVersion: 'abc',
  status: 'done',
  snapshot: { value: { booking: { date: 'asking' } } },
  seq: 3,
  startedAt: 1,
  updatedAt: 9,
  endedReason: 'final',
  result: { score: '3' },
};

describe('transcriptState', () => {
  it("writes a state value as the engine's statePath does", () => {
    for (const value of ['asking', { booking: 'date' }, { a: { b: 'c' }, d: 'e' }, { x: {} }]) {
      expect(transcriptState(value)).toBe(statePath(value));
    }
  });
});

describe('buildTranscript', () => {
  it("orders entries by time, joins each SMS's record, and takes the end code from the run's result", () => {
    const sms: MessageRecord = {
      v: 1,
      ...key,
      smsId: 'sms-1',
      status: 'errored',
      statusReason: 'unreachable',
      encoding: 'UCS-2',
      parts: 2,
      price: 0.01,
    };
    const transcript = buildTranscript({
      key,
      record,
      timers: [],
      entries: [
        { direction: 'out', at: 20, body: 'Thanks ✓', smsId: 'sms-1' },
        { direction: 'in', at: 10, body: '3', stateAfter: 'booking.date.asking' },
        { direction: 'out', at: 30, body: 'gone', smsId: 'sms-old' },
      ],
      messages: new Map([['sms-1', sms]]),
      result: {
        v: 1,
        ...key,
        runId: 'run-2',
        bot: 'survey',
        botVersion: 'abc',
        startedAt: 1,
        endedAt: 9,
        endCode: 'completed',
        fields: { score: '3' },
      },
    });
    expect(transcript?.entries).toEqual([
      { direction: 'in', at: 10, body: '3', stateAfter: 'booking.date.asking' },
      {
        direction: 'out',
        at: 20,
        body: 'Thanks ✓',
        smsId: 'sms-1',
        status: 'errored',
        reason: 'unreachable',
        encoding: 'UCS-2',
        parts: 2,
        price: 0.01,
      },
      { direction: 'out', at: 30, body: 'gone', smsId: 'sms-old' },
    ]);
    expect(transcript?.conversation).toMatchObject({
      state: 'booking.date.asking',
      endCode: 'completed',
      endedAt: 9,
      result: { score: '3' },
    });
  });

  it('answers null for a phone with neither record nor messages', () => {
    const empty = { key, record: null, timers: [], entries: [], messages: new Map(), result: null };
    expect(buildTranscript(empty)).toBeNull();
  });
});
