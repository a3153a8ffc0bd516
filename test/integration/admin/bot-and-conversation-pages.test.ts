import type { Express } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import survey from '../../../bots/survey.ts';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { gaugePaths } from '../../../src/conversation/count-activity.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { adminToken, readToken } from './dashboard-app.ts';

const registry = createBotRegistry([{ bot: survey, file: 'survey.ts' }]);
const phones = {
  answersFirst: ['33612350101', '33612350102'],
  completes: ['33612350201'],
  optsOut: ['33612350301'],
  silent: ['33612350401'],
};
const everyone = Object.values(phones).flat();
const full = `Bearer ${adminToken}`;
const read = `Bearer ${readToken}`;
const api = `/admin/api/bots/${location}/survey`;

interface Listed {
  ref: string;
  phone: string;
  state: string;
  startedAt: number;
  updatedAt: number;
}

describe('the bot page and the conversation page, on a real survey (Redis, emulator on loopback)', () => {
  let loop: ReplyLoop;
  let app: Express;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry });
    const logger = pino({ level: 'silent' });
    // The admin router as `replyflow start` mounts it, with both tokens, on the loop's store.
    app = createHttpApp({
      store: loop.store,
      clock: systemClock,
      logger,
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store: loop.store,
          registry,
          clock: systemClock,
          config: {
            locations: [{ name: location } as LocationConfig],
            adminToken,
            adminReadToken: readToken,
          },
          logger,
        }),
      ],
    });
    for (const phone of everyone) await loop.start(phone, 'survey', { lang: 'en' });
    for (const phone of everyone) await loop.waitForBodies(phone, 1);
    for (const phone of phones.answersFirst) {
      await loop.reply(phone, '1');
      await loop.waitForBodies(phone, 2);
    }
    for (const phone of phones.completes) {
      await loop.reply(phone, '2');
      await loop.waitForBodies(phone, 2);
      await loop.reply(phone, '8');
      await loop.waitForBodies(phone, 3);
      await loop.reply(phone, 'SKIP');
      await loop.waitForBodies(phone, 4);
    }
    for (const phone of phones.optsOut) {
      await loop.reply(phone, 'STOP');
      await loop.waitForBodies(phone, 2);
    }
    for (const phone of everyone) await settle(loop, phone);
  });
  afterAll(() => loop?.close());

  it('answers the funnel as the records are, its transitions placed on the chart edges', async () => {
    const chart = await request(app).get(`${api}/statechart`).set('authorization', read);
    expect(chart.status).toBe(200);
    const edgeId = (from: string, to: string) =>
      (chart.body.edges as Array<{ id: string; from: string; to: string }>).find(
        (edge) => edge.from === from && edge.to === to,
      )!.id;
    expect(chart.body.nodes.map((node: { id: string }) => node.id)).toEqual(
      expect.arrayContaining(['answering', 'answering.visit', 'answering.score', 'done']),
    );

    const funnel = await request(app).get(`${api}/funnel`).set('authorization', read);
    expect(funnel.status).toBe(200);
    const gauge: Record<string, number> = {};
    for (const phone of everyone) {
      const record = await loop.store.getConversation({ location, phone });
      if (record?.status !== 'active') continue;
      for (const path of gaugePaths(record)) gauge[path] = (gauge[path] ?? 0) + 1;
    }
    expect(gauge).toEqual({
      '*': 3,
      answering: 3,
      'answering.score': phones.answersFirst.length,
      'answering.visit': phones.silent.length,
    });
    expect(funnel.body.active).toEqual(gauge);
    expect(funnel.body.transitions.today).toEqual({
      '(start)>answering.visit': everyone.length,
      'answering.visit>answering.score': phones.answersFirst.length + phones.completes.length,
      'answering.score>answering.comment': phones.completes.length,
      'answering.comment>done': phones.completes.length,
    });
    expect(funnel.body.edges.today).toEqual({
      [edgeId('(initial)(machine)', 'starting')]: everyone.length,
      [edgeId('answering.visit', 'answering.score')]: 3,
      [edgeId('answering.score', 'answering.comment')]: 1,
    });
    expect(funnel.body.other.today).toEqual({ 'answering.comment>done': 1 });
    expect(funnel.body.dropOffs.total).toEqual({ 'answering.visit': { opted_out: 1 } });
  });

  it('lists the conversations in a state, its descendants included, phones masked', async () => {
    const inScore = await request(app)
      .get(`${api}/conversations?state=answering.score`)
      .set('authorization', read);
    expect(inScore.status).toBe(200);
    const listed = inScore.body.conversations as Listed[];
    expect(listed.map((c) => c.phone).sort()).toEqual(['336•••••101', '336•••••102']);
    expect(listed.every((c) => c.state === 'answering.score' && c.startedAt <= c.updatedAt)).toBe(
      true,
    );
    expect(inScore.body).toMatchObject({ cursor: null, partial: false });
    expect(JSON.stringify(inScore.body)).not.toMatch(/33612350\d{3}/);

    const inAnswering = await request(app)
      .get(`${api}/conversations?state=answering`)
      .set('authorization', read);
    expect(inAnswering.body.conversations).toHaveLength(3);

    // One at a time: the cursor goes on where the first answer stopped.
    const first = await request(app)
      .get(`${api}/conversations?state=answering.score&limit=1`)
      .set('authorization', read);
    expect(first.body.conversations).toHaveLength(1);
    expect(first.body.cursor).toEqual(expect.any(String));
    const second = await request(app)
      .get(`${api}/conversations?state=answering.score&limit=1&cursor=${first.body.cursor}`)
      .set('authorization', read);
    expect(
      [...first.body.conversations, ...second.body.conversations]
        .map((c: Listed) => c.phone)
        .sort(),
    ).toEqual(['336•••••101', '336•••••102']);
  });

  it("opens a listed conversation's transcript: messages in order, delivered, masked for the read token", async () => {
    const inScore = await request(app)
      .get(`${api}/conversations?state=answering.score`)
      .set('authorization', read);
    const listed = (inScore.body.conversations as Listed[]).find((c) => c.phone === '336•••••101')!;
    expect(listed.ref).not.toContain('33612350101');
    const page = await request(app)
      .get(`/admin/conversations/${listed.ref}`)
      .set('authorization', read);
    expect(page.status).toBe(200);
    expect(page.text).toContain('/admin/assets/conversation.js');

    // The delivery reports come through the webhook: wait for both.
    const transcript = await waitFor(async () => {
      const answer = await request(app)
        .get(`/admin/api/conversations/${listed.ref}`)
        .set('authorization', read);
      const entries = answer.body.entries as Array<{ direction: string; status?: string }>;
      return (
        entries?.filter((e) => e.direction === 'out').every((e) => e.status === 'delivered') &&
        answer
      );
    });
    expect(transcript.status).toBe(200);
    expect(transcript.body).toMatchObject({
      location,
      phone: '336•••••101',
      masked: true,
      conversation: { bot: 'survey', status: 'active', state: 'answering.score' },
    });
    expect(
      transcript.body.entries.map((e: { direction: string; body: string; status?: string }) => [
        e.direction,
        e.body,
        e.status,
      ]),
    ).toEqual([
      ['out', expect.stringContaining('How did you find it?'), 'delivered'],
      ['in', '1', undefined],
      ['out', expect.stringContaining('From 0 to 10'), 'delivered'],
    ]);
    expect(transcript.body.entries[1].stateAfter).toBe('answering.score');
    expect(transcript.body.entries[0]).toMatchObject({ parts: 1, encoding: 'GSM-7' });
    expect(transcript.body.conversation.timers.length).toBeGreaterThan(0);
    expect(transcript.body.conversation.result).toEqual({ visit: 'excellent' });
    expect(JSON.stringify(transcript.body)).not.toContain('33612350101');

    const whole = await request(app)
      .get(`/admin/api/conversations/${listed.ref}`)
      .set('authorization', full);
    expect(whole.body).toMatchObject({ phone: '33612350101', masked: false });
  });

  it('answers 404 to a tampered or unknown reference, and to an unknown bot or location', async () => {
    const listed = await request(app)
      .get(`${api}/conversations?state=answering.visit`)
      .set('authorization', full);
    const ref = (listed.body.conversations as Listed[])[0]!.ref;
    const flipped = `${ref.slice(0, 20)}${ref[20] === 'A' ? 'B' : 'A'}${ref.slice(21)}`;
    for (const bad of [flipped, 'x', ref.slice(0, -2)]) {
      const answer = await request(app)
        .get(`/admin/api/conversations/${bad}`)
        .set('authorization', full);
      expect(answer.status, bad).toBe(404);
    }
    expect(
      (await request(app).get(`/admin/api/conversations/${ref}`).set('authorization', full)).status,
    ).toBe(200);
    for (const path of [
      '/admin/api/bots/paris/nobot/statechart',
      '/admin/api/bots/lyon/survey/funnel',
      '/admin/api/bots/lyon/survey/conversations',
    ]) {
      const answer = await request(app).get(path).set('authorization', read);
      expect(answer.status, path).toBe(404);
    }
    const bad = await request(app)
      .get(`${api}/conversations?cursor=nope`)
      .set('authorization', read);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cursor');
  });

  it('wants a credential on every new route', async () => {
    for (const path of [
      `/admin/bots/${location}/survey`,
      `${api}/statechart`,
      `${api}/funnel`,
      `${api}/conversations`,
      '/admin/conversations/abc',
      '/admin/api/conversations/abc',
    ]) {
      expect((await request(app).get(path)).status, path).toBe(401);
    }
  });
});
