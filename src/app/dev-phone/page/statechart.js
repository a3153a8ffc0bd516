// The bot's statechart as SVG, from the layout the server computed (elkjs). It is drawn at its
// laid-out size (100 %: labels of 11 px and more) in a box that pans (drag, scroll) and zooms
// (the buttons, or ctrl + wheel); "Expand" shows it over the whole window.

import { $, h, svg } from './dom.js';

export const leaves = (paths) => paths.filter((p) => !paths.some((o) => o.startsWith(`${p}.`)));

const zooms = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2];
const view = { zoom: 1, chart: undefined, shown: '' };

export function drawChart(chart, c) {
  const box = $('statechart');
  if (!chart?.nodes) {
    view.chart = undefined;
    box.replaceChildren(h('p', { class: 'muted small', text: chart?.error ?? 'no statechart' }));
    return;
  }
  const active = new Set(c && c.bot === chart.bot ? c.activePaths : []);
  const ended = c && c.status !== 'active';
  const root = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
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
    // A timer that stays (a reminder) loops on its state, dashed.
    const g = svg('g', {
      class: `edge${edge.stays ? ' stays' : ''}`,
      'data-edge': `${edge.from}>${edge.to}`,
    });
    g.append(svg('path', { d: pathOf(edge), 'marker-end': 'url(#arrow)' }));
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
  const scroll = { left: box.scrollLeft, top: box.scrollTop };
  const again = view.chart?.bot === chart.bot && view.chart?.version === chart.version;
  view.chart = chart;
  box.replaceChildren(root);
  sizeChart();
  if (again) Object.assign(box, { scrollLeft: scroll.left, scrollTop: scroll.top });
  // A new chart, or a new state: bring the active state into view.
  const shown = `${chart.bot}@${chart.version}:${[...active].join(',')}`;
  if (shown !== view.shown) {
    view.shown = shown;
    showActive();
  }
  $('chart-caption').textContent = c
    ? `${chart.bot} · drawn from the machine definition · current state highlighted`
    : `${chart.bot} · the bot selected in the start form`;
}

/**
 * A transition's route: its polyline, or for a loop on a state (`stays`, a reminder) a curve
 * out to the side ELK left for it and back, which a polyline that short does not show.
 */
export function pathOf(edge) {
  const points = edge.points;
  if (edge.stays) {
    const [a, b] = [points[0], points[points.length - 1]];
    const out = { x: points[1].x - a.x, y: points[1].y - a.y };
    const length = Math.hypot(out.x, out.y) || 1;
    const [ox, oy] = [(out.x / length) * 13, (out.y / length) * 13];
    const [sx, sy] = [(a.x - b.x) * 1.6, (a.y - b.y) * 1.6];
    return `M${a.x} ${a.y} C${a.x + ox + sx} ${a.y + oy + sy} ${b.x + ox - sx} ${b.y + oy - sy} ${b.x} ${b.y}`;
  }
  return points.map((p, i) => `${i ? 'L' : 'M'}${p.x} ${p.y}`).join(' ');
}

/** Sizes the drawing at the zoom, and says the zoom on its button. */
function sizeChart() {
  const root = $('statechart').querySelector('svg');
  $('chart-zoom').textContent = `${Math.round(view.zoom * 100)} %`;
  if (!root || !view.chart) return;
  root.setAttribute('width', String(Math.round(view.chart.width * view.zoom)));
  root.setAttribute('height', String(Math.round(view.chart.height * view.zoom)));
}

/** Scrolls the box so the deepest active state is in view, unless it is already. */
function showActive() {
  const box = $('statechart');
  const nodes = [...box.querySelectorAll('g.node.active')];
  const target = nodes[nodes.length - 1];
  if (!target) return;
  const a = target.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  if (a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom) return;
  box.scrollLeft += a.left + a.width / 2 - (b.left + b.width / 2);
  box.scrollTop += a.top + a.height / 2 - (b.top + b.height / 2);
}

/** Zooms to `zoom`, keeping the point (`at`, in the box's pixels; default its centre) still. */
function zoomTo(zoom, at) {
  const box = $('statechart');
  const point = at ?? { x: box.clientWidth / 2, y: box.clientHeight / 2 };
  const before = view.zoom;
  view.zoom = Math.min(zooms[zooms.length - 1], Math.max(0.2, zoom));
  const ratio = view.zoom / before;
  const left = (box.scrollLeft + point.x) * ratio - point.x;
  const top = (box.scrollTop + point.y) * ratio - point.y;
  sizeChart();
  Object.assign(box, { scrollLeft: left, scrollTop: top });
}

const step = (direction) => {
  const next =
    direction > 0
      ? zooms.find((z) => z > view.zoom + 0.001)
      : [...zooms].reverse().find((z) => z < view.zoom - 0.001);
  zoomTo(next ?? view.zoom);
};

/** The whole chart in the box (never above 100 %). */
function fit() {
  const box = $('statechart');
  if (!view.chart) return;
  const style = getComputedStyle(box);
  const padX = Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight);
  const padY = Number.parseFloat(style.paddingTop) + Number.parseFloat(style.paddingBottom);
  const zoom = Math.min(
    (box.clientWidth - padX) / view.chart.width,
    (box.clientHeight - padY) / view.chart.height,
    1,
  );
  view.zoom = Math.max(0.2, Math.floor(zoom * 100) / 100);
  sizeChart();
}

function expand(on) {
  const figure = $('chart-box');
  figure.classList.toggle('expanded', on);
  $('chart-expand').textContent = on ? 'Close' : 'Expand';
  $('chart-expand').setAttribute('aria-pressed', String(on));
  showActive();
}

$('chart-out').onclick = () => step(-1);
$('chart-in').onclick = () => step(1);
$('chart-zoom').onclick = () => zoomTo(1);
$('chart-fit').onclick = fit;
$('chart-expand').onclick = () => expand(!$('chart-box').classList.contains('expanded'));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && $('chart-box').classList.contains('expanded')) expand(false);
});

// Drag to pan; ctrl (or ⌘) + wheel zooms around the pointer, a plain wheel scrolls.
const box = $('statechart');
box.addEventListener('pointerdown', (event) => {
  if (event.button !== 0) return;
  const start = { x: event.clientX, y: event.clientY, left: box.scrollLeft, top: box.scrollTop };
  box.setPointerCapture(event.pointerId);
  box.classList.add('panning');
  const move = (e) => {
    box.scrollLeft = start.left - (e.clientX - start.x);
    box.scrollTop = start.top - (e.clientY - start.y);
  };
  const stop = () => {
    box.classList.remove('panning');
    box.removeEventListener('pointermove', move);
    box.removeEventListener('pointerup', stop);
    box.removeEventListener('pointercancel', stop);
  };
  box.addEventListener('pointermove', move);
  box.addEventListener('pointerup', stop);
  box.addEventListener('pointercancel', stop);
});
box.addEventListener(
  'wheel',
  (event) => {
    if (!event.ctrlKey && !event.metaKey) return;
    event.preventDefault();
    const b = box.getBoundingClientRect();
    zoomTo(view.zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1), {
      x: event.clientX - b.left,
      y: event.clientY - b.top,
    });
  },
  { passive: false },
);
