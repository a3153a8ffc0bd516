import { describe, expect, it } from 'vitest';
import survey from '../../../bots/survey.ts';
import { mapTransitions } from '../../../src/admin/dashboard/map-funnel.ts';
import { layoutStatechart } from '../../../src/statechart/layout-statechart.ts';

const edge = (id: string, from: string, to: string) => ({ id, from, to });

describe('placing the counted steps on the statechart', () => {
  it("puts a run's first state on the root's initial edge and each step on its drawn transition", async () => {
    const chart = await layoutStatechart(survey.machine);
    const id = (from: string, to: string) =>
      chart.edges.find((e) => e.from === from && e.to === to)!.id;
    const mapped = mapTransitions(chart.edges, {
      '(start)>answering.visit': 7,
      'answering.visit>answering.score': 5,
      'answering.score>answering.comment': 2,
      'answering.comment>done': 2,
      'answering.score>expired': 1,
    });
    expect(mapped.edges).toEqual({
      [id('(initial)(machine)', 'starting')]: 7,
      // The first of the guarded twins between the same states.
      [id('answering.visit', 'answering.score')]: 5,
      [id('answering.score', 'answering.comment')]: 2,
      // Left from a leaf of `answering`: its `after expiry` transition.
      [id('answering', 'expired')]: 1,
    });
    // Through the transient `saving` (an `always` state): no edge stands for it.
    expect(mapped.other).toEqual({ 'answering.comment>done': 2 });
  });

  it('takes the most specific edge: deepest source, then deepest target', () => {
    const edges = [
      edge('outer', 'booking', 'done'),
      edge('inner', 'booking.date', 'done'),
      edge('compound', 'asking', 'booking'),
      edge('leaf', 'asking', 'booking.time'),
    ];
    expect(
      mapTransitions(edges, {
        'booking.date>done': 1,
        'booking.time>done': 2,
        'asking>booking.date': 3,
        'asking>booking.time': 4,
      }),
    ).toEqual({ edges: { inner: 1, outer: 2, compound: 3, leaf: 4 }, other: {} });
  });

  it('matches the regions that changed in parallel states, and keeps an unknown step in other', () => {
    const edges = [
      edge('a', 'form.name.asking', 'form.name.given'),
      edge('b', 'form.mail.asking', 'form.mail.given'),
    ];
    expect(
      mapTransitions(edges, {
        'form.mail.asking, form.name.asking>form.mail.asking, form.name.given': 3,
        'gone>form.mail.given': 1,
      }),
    ).toEqual({ edges: { a: 3 }, other: { 'gone>form.mail.given': 1 } });
  });
});
