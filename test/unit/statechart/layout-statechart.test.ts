import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { and, not, setup, stateIn } from 'xstate';
import { mapTransitions } from '../../../src/admin/dashboard/map-funnel.ts';
import { activePaths, stateLabel } from '../../../src/app/dev-phone/conversation-view.ts';
import type { Bot } from '../../../src/bot/define-bot.ts';
import { saidNumber, saidYes } from '../../../src/bot/intents/said-guards.ts';
import { failedWith } from '../../../src/bot/status-guards.ts';
import {
  guardLabel,
  layoutStatechart,
  shortSource,
} from '../../../src/statechart/layout-statechart.ts';

const machine = setup({ guards: { ready: () => true } }).createMachine({
  id: 'flow',
  initial: 'a',
  states: {
    a: { after: { 5000: 'b' }, on: { GO: { target: 'p', guard: 'ready' } } },
    b: { always: 'p' },
    p: {
      initial: 'c',
      states: { c: { on: { NEXT: 'd' } }, d: { type: 'final' } },
      on: { BACK: '#flow.a' },
    },
  },
});

describe('layoutStatechart', () => {
  it('draws every state, nested ones inside their parent, and every transition with its label', async () => {
    const chart = await layoutStatechart(machine);
    const node = (id: string) => chart.nodes.find((n) => n.id === id)!;
    expect(chart.nodes.filter((n) => n.kind !== 'initial').map((n) => [n.id, n.kind])).toEqual([
      ['a', 'atomic'],
      ['b', 'atomic'],
      ['p', 'compound'],
      ['p.c', 'atomic'],
      ['p.d', 'final'],
    ]);
    const parent = node('p');
    for (const child of [node('p.c'), node('p.d')]) {
      expect(child.x).toBeGreaterThan(parent.x);
      expect(child.y).toBeGreaterThan(parent.y);
      expect(child.x + child.width).toBeLessThan(parent.x + parent.width);
      expect(child.y + child.height).toBeLessThan(parent.y + parent.height);
    }
    const edges = chart.edges.map((e) => [e.from, e.to, e.label]);
    expect(edges).toEqual(
      expect.arrayContaining([
        ['a', 'b', 'after 5s'],
        ['a', 'p', 'GO\n[ready]'],
        ['b', 'p', 'always'],
        ['p', 'a', 'BACK'],
        ['p.c', 'p.d', 'NEXT'],
        ['(initial)(machine)', 'a', ''],
        ['(initial)p', 'p.c', ''],
      ]),
    );
    for (const edge of chart.edges) {
      expect(edge.points.length).toBeGreaterThanOrEqual(2);
      for (const p of edge.points) {
        expect(p.x).toBeGreaterThanOrEqual(0);
        expect(p.x).toBeLessThanOrEqual(chart.width);
      }
    }
  });

  it('draws a machine with no states as one state', async () => {
    const single = setup({}).createMachine({ id: 'help', type: 'final' });
    const chart = await layoutStatechart(single);
    expect(chart.nodes).toMatchObject([{ id: '(machine)', label: 'help', kind: 'final' }]);
    expect(activePaths({})).toEqual(['(machine)']);
  });
});

/** A machine with timers that stay (reminders) and guards of every kind. */
const timers = setup({
  types: { context: {} as { reminded: boolean; tries: number }, events: {} as { type: string } },
  delays: { expiry: 3 * 86_400_000, reminder: () => 3_600_000 },
  guards: { canRetry: ({ context }) => context.tries < 2, ready: () => true },
}).createMachine({
  id: 'timers',
  context: { reminded: false, tries: 0 },
  initial: 'asking',
  states: {
    asking: {
      after: {
        reminder: { guard: ({ context }) => !context.reminded, actions: () => {} },
        '24h': { actions: () => {} },
        7200000: { actions: () => {} },
        expiry: 'gone',
      },
      on: {
        // Targetless and not a timer (an answer asked again): not drawn.
        AGAIN: { guard: 'canRetry', actions: () => {} },
        YES: { guard: saidYes, target: 'gone' },
        NUMBER: { guard: saidNumber({ min: 0, max: 10 }), target: 'gone' },
        FAIL: { guard: failedWith('EXPIRED'), target: 'gone' },
        BOTH: { guard: and(['ready', not('canRetry')]), target: 'gone' },
        IN: { guard: stateIn('asking'), target: 'gone' },
        PARAMS: { guard: { type: 'ready', params: { x: 1 } }, target: 'gone' },
        GO: {
          guard: ({ event }) => event.type === 'GO' && Date.now() > 0,
          target: 'gone',
        },
      },
    },
    gone: { type: 'final' },
  },
});

describe('timers and guards on the statechart', () => {
  it('draws a timer that stays as a loop on its state, labelled with its delay and its guard', async () => {
    const chart = await layoutStatechart(timers);
    const loops = chart.edges.filter((e) => e.stays);
    // (XState lists numeric delays first, as JavaScript orders an object's keys.)
    expect(loops.map((e) => [e.from, e.to, e.label]).sort()).toEqual([
      ['asking', 'asking', 'after 24h'],
      ['asking', 'asking', 'after 2h'],
      ['asking', 'asking', 'after reminder\n[!context.reminded]'],
    ]);
    for (const loop of loops) {
      expect(loop.points.length).toBeGreaterThanOrEqual(2);
      expect(loop.labelBox).toBeDefined();
    }
    // A named delay of a fixed value says it; a timer with a target is an edge as before.
    expect(chart.edges.find((e) => e.to === 'gone' && e.label.startsWith('after'))).toMatchObject({
      label: 'after expiry (3d)',
    });
    expect(chart.edges.find((e) => e.to === 'gone' && e.label.startsWith('after'))!.stays).toBe(
      undefined,
    );
    // An event's targetless transition is left out.
    expect(chart.edges.some((e) => e.label.startsWith('AGAIN'))).toBe(false);
  });

  it('labels guards by their name, and an inline one by its source text, never a bare [guard]', async () => {
    const chart = await layoutStatechart(timers);
    const label = (event: string) => chart.edges.find((e) => e.label.startsWith(event))?.label;
    expect(label('YES')).toBe('YES\n[saidYes]');
    expect(label('NUMBER')).toBe('NUMBER\n[saidNumber]');
    expect(label('FAIL')).toBe('FAIL\n[failedWith EXPIRED]');
    expect(label('BOTH')).toBe('BOTH\n[and(ready, not(canRetry))]');
    expect(label('IN')).toBe('IN\n[in asking]');
    expect(label('PARAMS')).toBe('PARAMS\n[ready]');
    // `event.type === 'GO' &&` is always true on GO's transition: left out.
    expect(label('GO')).toBe('GO\n[Date.now() > 0]');
    for (const edge of chart.edges) expect(edge.label).not.toMatch(/\[guard\]/);
  });

  it('shortens an inline guard to its body on at most two lines', async () => {
    expect(shortSource('({ context }) => !context.reminded')).toBe('!context.reminded');
    // A loader may print the source without spaces, and `undefined` as `void 0`.
    expect(shortSource('({context:e})=>e.a!==void 0&&e.b>=2')).toBe(
      'e.a !== undefined && e.b >= 2',
    );
    expect(shortSource('function (x) {\n  return x.a > 1;\n}')).toBe('x.a > 1');
    expect(shortSource("({ event }) => (event.body === 'a&&b,c')")).toBe("event.body === 'a&&b,c'");
    expect(shortSource('x => x.ok')).toBe('x.ok');
    const long = setup({}).createMachine({
      initial: 'a',
      states: {
        a: {
          on: {
            GO: {
              guard: ({ context }) =>
                JSON.stringify(context).length > 1000 && JSON.stringify(context).includes('x'),
              target: 'b',
            },
          },
        },
        b: {},
      },
    });
    const [, ...guardLines] = (await layoutStatechart(long)).edges
      .find((e) => e.label.startsWith('GO'))!
      .label.split('\n');
    expect(guardLines).toHaveLength(2);
    for (const line of guardLines) expect(line.length).toBeLessThanOrEqual(30);
    expect(guardLines[0]).toMatch(/^\[JSON\.stringify/);
    expect(guardLines[1]).toMatch(/…\]$/);
    // A function with a name says it.
    const saidCancel = () => true;
    expect(guardLabel(saidCancel)).toBe('saidCancel');
  });

  it('draws the reference bots with their reminders and no bare [guard]', {
    timeout: 60_000,
  }, async () => {
    for (const name of ['appointment', 'survey']) {
      const bot = (await import(resolve('bots', `${name}.ts`))).default as Bot;
      const chart = await layoutStatechart(bot.machine);
      for (const edge of chart.edges) expect(edge.label).not.toMatch(/\[guard\]/);
      const loops = chart.edges.filter((e) => e.stays);
      expect(loops.length).toBeGreaterThan(0);
      for (const loop of loops) expect(loop.label).toMatch(/^after reminder\n\[/);
    }
    const appointment = (await import(resolve('bots', 'appointment.ts'))).default as Bot;
    const chart = await layoutStatechart(appointment.machine);
    expect(chart.edges.filter((e) => e.stays).map((e) => e.from)).toEqual([
      'open.asking',
      'open.choosing',
      'open.proposed',
    ]);
    expect(chart.edges.map((e) => e.label)).toEqual(
      expect.arrayContaining(['sms.reply\n[saidYes]', 'sms.status\n[failedWith]']),
    );
  });

  it('puts no funnel count on a loop: a step through an always state stays unplaced', async () => {
    const flow = setup({}).createMachine({
      id: 'flow',
      initial: 'p',
      states: {
        p: {
          initial: 'a',
          after: { '1h': { actions: () => {} } },
          states: { a: { on: { GO: 'b' } }, b: { always: 'c' }, c: {} },
        },
      },
    });
    const chart = await layoutStatechart(flow);
    expect(chart.edges.find((e) => e.stays)).toMatchObject({ from: 'p', to: 'p' });
    // p.a went to p.c through the transient p.b: no drawn edge stands for it.
    const mapped = mapTransitions(chart.edges, { 'p.a>p.c': 3 });
    expect(mapped.other).toEqual({ 'p.a>p.c': 3 });
    expect(mapped.edges).toEqual({});
  });
});

describe('state paths', () => {
  it('names every active state as the statechart does, and the leaves for a notice', () => {
    expect(activePaths('asking')).toEqual(['asking']);
    expect(activePaths({ p: 'c' })).toEqual(['p', 'p.c']);
    expect(activePaths({ r: { x: 'y', z: 'w' } })).toEqual(['r', 'r.x', 'r.x.y', 'r.z', 'r.z.w']);
    expect(stateLabel({ r: { x: 'y', z: 'w' } })).toBe('r.x.y + r.z.w');
  });
});
