// The bot's statechart as SVG, from the layout the server computed (elkjs).

import { $, h, svg } from './dom.js';

export const leaves = (paths) => paths.filter((p) => !paths.some((o) => o.startsWith(`${p}.`)));

export function drawChart(chart, c) {
  const box = $('statechart');
  if (!chart?.nodes) {
    box.replaceChildren(h('p', { class: 'muted small', text: chart?.error ?? 'no statechart' }));
    return;
  }
  const active = new Set(c && c.bot === chart.bot ? c.activePaths : []);
  const ended = c && c.status !== 'active';
  const root = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
    // A little larger than laid out, so labels read well; CSS shrinks it to fit a phone.
    width: Math.round(chart.width * 1.3),
    height: Math.round(chart.height * 1.3),
    'aria-label': `Statechart of ${chart.bot}`,
  });
  const defs = svg('defs');
  const marker = svg('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M0 0 L10 5 L0 10 z', fill: '#8d96a8' }));
  defs.append(marker);
  root.append(defs);
  for (const node of chart.nodes) {
    if (node.kind === 'initial') {
      root.append(
        svg('circle', {
          class: 'initial',
          cx: node.x + node.width / 2,
          cy: node.y + node.height / 2,
          r: node.width / 2,
        }),
      );
      continue;
    }
    const isActive = active.has(node.id);
    const g = svg('g', {
      class: `node ${node.kind}${isActive ? ' active' : ''}${isActive && ended && node.kind !== 'compound' ? ' ended' : ''}`,
      'data-state': node.id,
      'data-active': isActive,
    });
    const compound = node.kind === 'compound' || node.kind === 'parallel';
    g.append(
      svg('rect', {
        x: node.x,
        y: node.y,
        width: node.width,
        height: node.height,
        rx: compound ? 12 : 10,
      }),
    );
    if (node.kind === 'final') {
      g.append(
        svg('rect', {
          class: 'inner',
          x: node.x + 3,
          y: node.y + 3,
          width: node.width - 6,
          height: node.height - 6,
          rx: 8,
        }),
      );
    }
    const text = svg('text', {
      x: compound ? node.x + 10 : node.x + node.width / 2,
      y: compound ? node.y + 18 : node.y + node.height / 2 + 4.5,
      'text-anchor': compound ? 'start' : 'middle',
    });
    text.textContent = node.label;
    g.append(text);
    root.append(g);
  }
  for (const edge of chart.edges) {
    if (edge.points.length < 2) continue;
    const g = svg('g', { class: 'edge' });
    const d = edge.points.map((p, i) => `${i ? 'L' : 'M'}${p.x} ${p.y}`).join(' ');
    g.append(svg('path', { d, 'marker-end': 'url(#arrow)' }));
    if (edge.labelBox) {
      const b = edge.labelBox;
      g.append(
        svg('rect', { x: b.x - 2, y: b.y - 1, width: b.width + 4, height: b.height + 2, rx: 3 }),
      );
      const t = svg('text', { y: b.y - 3, 'text-anchor': 'middle' });
      for (const line of edge.label.split('\n')) {
        const span = svg('tspan', { x: b.x + b.width / 2, dy: 14 });
        span.textContent = line;
        t.append(span);
      }
      g.append(t);
    }
    root.append(g);
  }
  box.replaceChildren(root);
  $('chart-caption').textContent = c
    ? `${chart.bot} · drawn from the machine definition · current state highlighted`
    : `${chart.bot} · the bot selected in the start form`;
}
