// A bot's statechart as SVG with its live figures: the geometry the server laid out (the dev
// phone's drawing, src/app/dev-phone/page/statechart.js), a badge of conversations on each state,
// a count on each transition, a ring on states where runs dropped off.

const stages = ['expired', 'opted_out', 'errored', 'interrupted'];
const fmt = new Intl.NumberFormat();
let ns;

/** An SVG element: the namespace is read from the page's own <svg>, so no URL is written here. */
function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(ns, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Where a count sits on a transition: the middle of its middle segment. */
function middleOf(points) {
  const i = Math.max(0, Math.floor((points.length - 1) / 2));
  const a = points[i];
  const b = points[i + 1] ?? a;
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

/** A transition's route: its polyline, or a curve for a timer's loop on its state (`stays`). */
function pathOf(edge) {
  const points = edge.points;
  if (!edge.stays) return points.map((p, i) => `${i ? 'L' : 'M'}${p.x} ${p.y}`).join(' ');
  const [a, b] = [points[0], points[points.length - 1]];
  const out = { x: points[1].x - a.x, y: points[1].y - a.y };
  const length = Math.hypot(out.x, out.y) || 1;
  const [ox, oy] = [(out.x / length) * 13, (out.y / length) * 13];
  const [sx, sy] = [(a.x - b.x) * 1.6, (a.y - b.y) * 1.6];
  return `M${a.x} ${a.y} C${a.x + ox + sx} ${a.y + oy + sy} ${b.x + ox - sx} ${b.y + oy - sy} ${b.x} ${b.y}`;
}

/**
 * Draws `chart` into the `<svg>` element `root`; `onState(path)` is called when a state is
 * clicked. Returns what `showFigures` updates.
 */
export function drawChart(root, chart, onState) {
  ns = root.namespaceURI;
  const pad = 14;
  root.setAttribute('viewBox', `0 0 ${chart.width + pad} ${chart.height + pad}`);
  root.setAttribute('width', String(Math.round((chart.width + pad) * 1.2)));
  root.setAttribute('height', String(Math.round((chart.height + pad) * 1.2)));
  root.setAttribute('aria-label', `Statechart of ${chart.bot}`);
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
  marker.append(svg('path', { d: 'M0 0 L10 5 L0 10 z', class: 'arrow' }));
  defs.append(marker);
  root.replaceChildren(defs);
  const states = new Map();
  const edges = new Map();
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
    const compound = node.kind === 'compound' || node.kind === 'parallel';
    const g = svg('g', {
      class: `node ${node.kind}`,
      'data-state': node.id,
      'data-count': 0,
      tabindex: 0,
      role: 'button',
    });
    g.append(
      svg('rect', {
        class: 'ring',
        x: node.x - 3,
        y: node.y - 3,
        width: node.width + 6,
        height: node.height + 6,
        rx: compound ? 14 : 12,
      }),
      svg('rect', {
        class: 'box',
        x: node.x,
        y: node.y,
        width: node.width,
        height: node.height,
        rx: compound ? 12 : 10,
      }),
      svg(
        'text',
        {
          class: 'label',
          x: compound ? node.x + 10 : node.x + node.width / 2,
          y: compound ? node.y + 18 : node.y + node.height / 2 + 4.5,
          'text-anchor': compound ? 'start' : 'middle',
        },
        node.label,
      ),
    );
    const badge = svg('g', { class: 'badge' });
    const bx = node.x + node.width - 4;
    const by = node.y + 4;
    badge.append(
      svg('rect', { class: 'badge-back', x: bx - 14, y: by - 9, width: 28, height: 18, rx: 9 }),
      svg('text', { class: 'badge-text', x: bx, y: by + 4, 'text-anchor': 'middle' }, '0'),
    );
    const title = svg('title', {}, node.id);
    g.append(badge, title);
    g.addEventListener('click', (event) => {
      event.stopPropagation();
      onState(node.id);
    });
    g.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onState(node.id);
      }
    });
    root.append(g);
    states.set(node.id, { g, badge, title, node });
  }
  for (const edge of chart.edges) {
    if (edge.points.length < 2) continue;
    const g = svg('g', {
      class: edge.stays ? 'edge stays' : 'edge',
      'data-edge': `${edge.from}>${edge.to}`,
      'data-edge-id': edge.id,
      'data-count': 0,
    });
    g.append(svg('path', { d: pathOf(edge), 'marker-end': 'url(#arrow)' }));
    if (edge.labelBox) {
      const b = edge.labelBox;
      g.append(
        svg('rect', {
          class: 'label-box',
          x: b.x - 2,
          y: b.y - 1,
          width: b.width + 4,
          height: b.height + 2,
          rx: 3,
        }),
      );
      const text = svg('text', { class: 'label', y: b.y - 3, 'text-anchor': 'middle' });
      for (const line of edge.label.split('\n')) {
        text.append(svg('tspan', { x: b.x + b.width / 2, dy: 14 }, line));
      }
      g.append(text);
    }
    root.append(g);
    // A nested initial edge is taken within a step into its parent, and a timer that stays (a
    // reminder's loop) is no step: no count of their own.
    if (edge.stays || (edge.from.startsWith('(initial)') && edge.from !== '(initial)(machine)'))
      continue;
    const at = middleOf(edge.points);
    const count = svg('g', { class: 'count' });
    count.append(
      svg('rect', { class: 'count-back', x: at.x - 15, y: at.y - 8, width: 30, height: 16, rx: 8 }),
      svg('text', { class: 'count-text', x: at.x, y: at.y + 4, 'text-anchor': 'middle' }, '0'),
    );
    g.append(count);
    edges.set(edge.id, { g, count });
  }
  return { states, edges };
}

/** Fits a pill to its number: wider for more digits. */
function setPill(pill, value, centre) {
  const text = fmt.format(value);
  const [rect, label] = pill.children;
  label.textContent = text;
  const width = Math.max(18, text.length * 7 + 10);
  rect.setAttribute('width', String(width));
  rect.setAttribute('x', String(centre - width / 2));
}

/** The drop-offs of one state path per stage, summed over the (parallel) leaves it is in. */
export function dropOffsByState(dropOffs) {
  const byState = new Map();
  for (const [leaves, counts] of Object.entries(dropOffs)) {
    for (const leaf of leaves.split(', ')) {
      const entry = byState.get(leaf) ?? {};
      for (const stage of stages) entry[stage] = (entry[stage] ?? 0) + (counts[stage] ?? 0);
      byState.set(leaf, entry);
    }
  }
  return byState;
}

/** Puts the funnel's figures of `period` on the drawn chart. */
export function showFigures(drawn, funnel, period) {
  const dropped = dropOffsByState(funnel.dropOffs[period]);
  for (const [id, { g, badge, title, node }] of drawn.states) {
    const active = funnel.active[id] ?? 0;
    g.dataset.count = String(active);
    g.classList.toggle('occupied', active > 0);
    setPill(badge, active, node.x + node.width - 4);
    const lost = dropped.get(id);
    const total = lost ? stages.reduce((sum, stage) => sum + lost[stage], 0) : 0;
    g.classList.toggle('dropped', total > 0);
    g.dataset.dropOffs = String(total);
    const detail = lost
      ? stages
          .filter((stage) => lost[stage] > 0)
          .map((stage) => `${stage.replace('_', ' ')} ${fmt.format(lost[stage])}`)
      : [];
    title.textContent = [`${id}: ${fmt.format(active)} now`, ...detail].join('\n');
  }
  const counts = funnel.edges[period];
  for (const [id, { g, count }] of drawn.edges) {
    const taken = counts[id] ?? 0;
    g.dataset.count = String(taken);
    g.classList.toggle('taken', taken > 0);
    const centre =
      Number(count.firstChild.getAttribute('x')) +
      Number(count.firstChild.getAttribute('width')) / 2;
    setPill(count, taken, centre);
  }
}

export { stages };
