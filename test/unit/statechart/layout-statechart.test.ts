import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { activePaths, stateLabel } from '../../../src/app/dev-phone/conversation-view.ts';
import { layoutStatechart } from '../../../src/statechart/layout-statechart.ts';

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

describe('state paths', () => {
  it('names every active state as the statechart does, and the leaves for a notice', () => {
    expect(activePaths('asking')).toEqual(['asking']);
    expect(activePaths({ p: 'c' })).toEqual(['p', 'p.c']);
    expect(activePaths({ r: { x: 'y', z: 'w' } })).toEqual(['r', 'r.x', 'r.x.y', 'r.z', 'r.z.w']);
    expect(stateLabel({ r: { x: 'y', z: 'w' } })).toBe('r.x.y + r.z.w');
  });
});
