import { resolve } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createDevRouter } from '../../../src/app/create-dev-router.ts';
import { startDev } from '../../../src/app/start-dev.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import { freePort } from '../../support/free-port.ts';
import { waitFor } from '../../support/wait-for.ts';

/** The dev API answers are read field by field. */
// biome-ignore lint/suspicious/noExplicitAny: one alias keeps the escape hatch in one place
type Json = any;

/** Reads Server-Sent Events frames from `/dev/events` until `enough` says stop. */
async function readFrames(
  url: string,
  headers: Record<string, string>,
  enough: (frames: Array<{ id: number; event: string; data: Json }>) => boolean,
) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const frames: Array<{ id: number; event: string; data: Json }> = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body!.getReader();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    while (!enough(frames)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        if (field('id')) {
          frames.push({
            id: Number(field('id')),
            event: field('event')!,
            data: JSON.parse(field('data')!),
          });
        }
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return frames;
}

describe('the dev phone API (replyflow dev)', () => {
  let dev: Awaited<ReturnType<typeof startDev>>;
  const phone = '33611223344';
  beforeAll(async () => {
    const config = await loadConfig({
      PORT: String(await freePort()),
      REPLYFLOW_BOTS_DIR: resolve('bots'),
      LOG_LEVEL: 'silent',
    });
    dev = await startDev(config, pino({ level: 'silent' }));
  });
  afterAll(() => dev?.close());

  it('lists the bots with their example input, and draws a statechart from the machine', async () => {
    const state: Json = await (await fetch(`${dev.url}/dev/state`)).json();
    const appointment = state.bots.find((b: Json) => b.id === 'appointment');
    expect(appointment.exampleInput).toBeTypeOf('object');
    expect(state.failureReasons).toEqual([
      'EXPIRED',
      'invalid_phone_number',
      'insufficient_balance',
    ]);
    const chart: Json = await (await fetch(`${dev.url}/dev/bots/appointment/statechart`)).json();
    const states = Object.keys(dev.registry.bots.get('appointment')!.machine.root.states);
    expect(chart.nodes.map((n: Json) => n.id)).toEqual(expect.arrayContaining(states));
    for (const node of chart.nodes) {
      expect(node.x + node.width).toBeLessThanOrEqual(chart.width);
      expect(node.y + node.height).toBeLessThanOrEqual(chart.height);
    }
    expect(
      chart.edges.some((e: Json) => e.label.startsWith('sms.reply') && e.points.length >= 2),
    ).toBe(true);
    expect((await fetch(`${dev.url}/dev/bots/nope/statechart`)).status).toBe(404);
  });

  it('refuses bad input with a message that says what to do, and changes nothing', async () => {
    const api = request(dev.url!);
    const badPhone = await api.post('/dev/phones').send({ phone: '12' });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.error).toMatch(/phone|number/i);
    expect((await api.post('/dev/phones').send({})).body.error).toMatch(/phone/);
    expect((await api.post(`/dev/phones/${phone}/messages`).send({ body: '  ' })).status).toBe(400);
    expect(
      (await api.post(`/dev/phones/${phone}/next-failure`).send({ reason: 'LOST' })).status,
    ).toBe(400);
    expect((await api.post('/dev/conversations').send({ bot: 'nope', phone })).status).toBe(404);
    // The start input is checked against the bot's schema, as the admin API checks it.
    const badInput = await api
      .post('/dev/conversations')
      .send({ bot: 'appointment', phone, input: { name: 'Ana', at: 'lundi', place: 'Cabinet' } });
    expect(badInput.status).toBe(400);
    expect(badInput.body).toMatchObject({
      field: 'input.at',
      error: expect.stringMatching(/^input\.at: /),
    });
    expect((await api.get(`/dev/phones/${phone}`)).body.conversation).toBeFalsy();
    // dev runs on the system clock until it is given one it can move
    expect((await api.post('/dev/clock/advance').send({ by: 'soon' })).status).toBe(400);
    const notJson = await api
      .post('/dev/phones')
      .set('content-type', 'application/json')
      .send('{"phone":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/not JSON/);
    const added = await api.post('/dev/phones').send({ phone: '+1 (415) 555-2671' });
    expect(added.body).toEqual({ phone: '14155552671', display: '+1 415 555 2671' });
  });

  it('numbers every event on the server and replays what a reconnecting page missed', async () => {
    const started = await request(dev.url!)
      .post('/dev/conversations')
      .send({
        bot: 'appointment',
        phone,
        input: { name: 'Ana', at: '2030-12-06T10:00:00+01:00', place: 'Cabinet' },
      });
    expect(started.status).toBe(202);
    const frames = await readFrames(`${dev.url}/dev/events?after=0`, {}, (f) =>
      f.some((x) => x.event === 'sms' && x.data.sms.status === 'delivered'),
    );
    const ids = frames.map((f) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const first = frames.find((f) => f.event === 'entry' && f.data.entry.kind === 'sms')!;
    expect(first.data.sms).toMatchObject({ to: phone, encoding: 'GSM-7', parts: 1 });
    // Last-Event-ID wins over ?after: only what came after it.
    const again = await readFrames(
      `${dev.url}/dev/events?after=0`,
      { 'Last-Event-ID': String(first.id) },
      (f) => f.length >= frames.filter((x) => x.id > first.id).length,
    );
    expect(again[0]!.id).toBe(first.id + 1);

    const reply = await request(dev.url!)
      .post(`/dev/phones/${phone}/messages`)
      .send({ body: 'oui' });
    expect(reply.status).toBe(201);
    const thread = await waitFor(async () => {
      const body = (await request(dev.url!).get(`/dev/phones/${phone}`)).body;
      return body.entries.filter((e: Json) => e.kind === 'sms').length === 2 && body;
    });
    const kinds = thread.entries.filter((e: Json) => e.kind !== 'notice').map((e: Json) => e.kind);
    expect(kinds).toEqual(['sms', 'reply', 'sms']);
    // The state change the engine committed before sending its answer is noted above it.
    const at = (test: (e: Json) => boolean) => thread.entries.findIndex(test);
    const move = at((e: Json) => e.kind === 'notice' && e.text.includes('→'));
    expect(move).toBeGreaterThan(at((e: Json) => e.kind === 'reply'));
    expect(move).toBeLessThan(thread.entries.findLastIndex((e: Json) => e.kind === 'sms'));
    expect(thread.entries.map((e: Json) => e.seq)).toEqual(
      [...thread.entries.map((e: Json) => e.seq)].sort((a: number, b: number) => a - b),
    );
  });

  it('tells a running conversation when its bot reloads with a changed machine', async () => {
    const other = '33611223366';
    await request(dev.url!).post('/dev/conversations').send({ bot: 'appointment', phone: other });
    await waitFor(async () => {
      const body = (await request(dev.url!).get(`/dev/phones/${other}`)).body;
      return body.conversation?.status === 'active';
    });
    // A second dev router on the same store, whose bots reload with a changed appointment.
    const bots = new Map(dev.registry.bots);
    let changed = false;
    bots.set('appointment', { ...bots.get('appointment')!, version: 'changed' });
    let listener: ((change: { reloaded: string[]; errors: [] }) => void) | undefined;
    const router = createDevRouter({
      store: dev.store,
      location: 'default',
      clock: { now: () => Date.now() },
      bots: {
        registry: () => (changed ? { ...dev.registry, bots } : dev.registry),
        errors: () => [],
        onChange(fn) {
          listener = fn;
          return () => {};
        },
      },
    });
    const app = express().use(router);
    expect((await request(app).get(`/dev/phones/${other}`)).body.conversation.status).toBe(
      'active',
    );
    changed = true;
    listener!({ reloaded: ['appointment'], errors: [] });
    const thread = (await request(app).get(`/dev/phones/${other}`)).body;
    expect(thread.entries.at(-1)).toMatchObject({
      kind: 'notice',
      text: expect.stringMatching(/appointment reloaded with a changed machine/),
    });
    expect(thread.conversation.loadedVersion).toBe('changed');
    router.close();
  });

  it('reset ends an active conversation as its expiry would, and clears the thread', async () => {
    const other = '33611223355';
    await request(dev.url!).post('/dev/conversations').send({ bot: 'appointment', phone: other });
    await waitFor(async () => {
      const body = (await request(dev.url!).get(`/dev/phones/${other}`)).body;
      return body.conversation?.status === 'active';
    });
    const reset = await request(dev.url!).post(`/dev/phones/${other}/reset`);
    expect(reset.body.ended).toBe(true);
    const after = await waitFor(async () => {
      const body = (await request(dev.url!).get(`/dev/phones/${other}`)).body;
      return body.conversation?.status === 'done' && body;
    });
    expect(after.conversation.endedReason).toBe('expired');
    expect(after.entries[0]).toMatchObject({
      kind: 'notice',
      text: expect.stringMatching(/reset/),
    });
    // A new conversation can start on the number.
    const again = await request(dev.url!)
      .post('/dev/conversations')
      .send({ bot: 'appointment', phone: other });
    expect(again.status).toBe(202);
  });

  // Last here: it moves the dev clock of this server 3 days ahead.
  it("computes a bot's example input by the dev clock: after +3d a start without input is still ahead of the appointment", async () => {
    const api = request(dev.url!);
    const exampleAt = async () => {
      const bots: Json = (await api.get('/dev/bots')).body;
      return Date.parse(bots.find((b: Json) => b.id === 'appointment').exampleInput.at);
    };
    const before = await exampleAt();
    const moved = await api.post('/dev/clock/advance').send({ by: '3d' });
    expect(moved.status).toBe(200);
    const after = await exampleAt();
    expect(after - before).toBeGreaterThanOrEqual(3 * 86_400_000 - 3_600_000);
    expect(after).toBeGreaterThan(moved.body.now);
    const state: Json = (await api.get('/dev/state')).body;
    expect(
      Date.parse(state.bots.find((b: Json) => b.id === 'appointment').exampleInput.at),
    ).toBeGreaterThan(moved.body.now);

    const other = '33611223377';
    const started = await api.post('/dev/conversations').send({ bot: 'appointment', phone: other });
    expect(started.status).toBe(202);
    const body = await waitFor(async () => {
      const read = (await api.get(`/dev/phones/${other}`)).body;
      return read.entries.some((e: Json) => e.kind === 'sms') && read;
    });
    // Not ended at once as too_late: the appointment asks.
    expect(body.conversation).toMatchObject({
      status: 'active',
      activePaths: ['open', 'open.asking'],
    });
  });

  it('says in the live frames of a phone which failures are still armed, so the page clears one used', async () => {
    const api = request(dev.url!);
    const other = '33611223388';
    expect(
      (await api.post(`/dev/phones/${other}/next-failure`).send({ reason: 'EXPIRED' })).body.armed,
    ).toEqual(['EXPIRED']);
    const after = (await api.get('/dev/state')).body.seq;
    const frames = readFrames(`${dev.url}/dev/events?after=${after}`, {}, (f) =>
      f.some((x) => x.event === 'sms' && x.data.sms?.status === 'errored'),
    );
    expect((await api.post(`/dev/phones/${other}/broadcast`).send({})).status).toBeLessThan(300);
    const got = await frames;
    const created = got.find((f) => f.event === 'entry' && f.data.entry.phone === other);
    expect(created!.data).toMatchObject({ entry: { kind: 'sms' }, armed: [] });
    expect(got.find((f) => f.event === 'sms')!.data.armed).toEqual([]);
  });
});

describe('the dev phone clock', () => {
  it('moves a clock that can move, by a duration, and refuses nonsense', async () => {
    const manual = createManualClock(Date.parse('2026-12-01T09:00:00Z'));
    const app = express();
    const router = createDevRouter({
      store: createMemoryStore({}),
      location: 'default',
      clock: { now: manual.now, advance: (ms) => manual.advance(ms) },
      registry: { bots: new Map(), byKeyword: new Map(), fallback: undefined },
    });
    app.use(router);
    const moved = await request(app).post('/dev/clock/advance').send({ by: '24h' });
    expect(moved.body.now).toBe(Date.parse('2026-12-02T09:00:00Z'));
    expect((await request(app).post('/dev/clock/advance').send({ by: 3_600_000 })).body.now).toBe(
      Date.parse('2026-12-02T10:00:00Z'),
    );
    for (const by of ['-1h', 'soon', 0, '400d']) {
      const refused = await request(app).post('/dev/clock/advance').send({ by });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/duration such as/);
    }
    expect(manual.now()).toBe(Date.parse('2026-12-02T10:00:00Z'));
    expect((await request(app).get('/dev/state')).body.canAdvance).toBe(true);
    router.close();
  });
});

describe('the dev phone and reloaded bots', () => {
  it('tells the page which bots reloaded and which files failed to load', async () => {
    type Change = { reloaded: string[]; errors: Array<{ file: string; message: string }> };
    let listener: ((change: Change) => void) | undefined;
    let errors: Change['errors'] = [];
    const app = express();
    const router = createDevRouter({
      store: createMemoryStore({}),
      location: 'default',
      clock: { now: () => Date.now() },
      bots: {
        registry: () => ({ bots: new Map(), byKeyword: new Map(), fallback: undefined }),
        errors: () => errors,
        onChange(fn) {
          listener = fn;
          return () => {
            listener = undefined;
          };
        },
      },
    });
    app.use(router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((done) => server.once('listening', done));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const frames = readFrames(`${url}/dev/events`, {}, (f) => f.some((x) => x.event === 'bots'));
      await waitFor(() => listener);
      errors = [{ file: 'bots/broken.ts', message: 'Unexpected token' }];
      // The stream may not be open yet: announce until the reader has the frame.
      const timer = setInterval(() => listener?.({ reloaded: ['survey'], errors }), 50);
      const got = await frames.finally(() => clearInterval(timer));
      expect(got.find((f) => f.event === 'bots')!.data).toMatchObject({
        reloaded: ['survey'],
        errors: [{ file: 'bots/broken.ts', message: 'Unexpected token' }],
      });
      expect((await request(app).get('/dev/state')).body.errors).toEqual(errors);
    } finally {
      router.close();
      server.close();
    }
  });
});
