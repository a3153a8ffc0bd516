// The campaign page's progress over time: the funnel's hourly counts summed up, one line per
// stage, drawn as SVG into the page's own <svg id="progress-chart"> (no library).

/** The stages drawn, each a line with its class in campaign.css. */
const series = [
  ['started', 'started'],
  ['delivered', 'delivered'],
  ['answered', 'answered'],
  ['completed', 'completed'],
  ['opted_out', 'opted out'],
];
const width = 720;
const height = 260;
const pad = { left: 48, right: 16, top: 14, bottom: 30 };
const hourMs = 3600000;

/** An SVG element in the namespace of `root` (read from the page: no URL written here). */
function svg(root, tag, attributes = {}, text) {
  const node = document.createElementNS(root.namespaceURI, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * The cumulative series of `hours` (`[{hour: 'yyyy-mm-ddThh', started, sent, …}]`, oldest
 * first): for each stage, its points at the start of the first hour (0) and at the end of each.
 */
export function cumulative(hours) {
  const sorted = [...hours].sort((a, b) => a.hour.localeCompare(b.hour));
  const time = (hour) => Date.parse(`${hour}:00:00Z`);
  const lines = {};
  for (const [stage] of series) {
    let sum = 0;
    lines[stage] = sorted.length === 0 ? [] : [[time(sorted[0].hour), 0]];
    for (const row of sorted) {
      sum += row[stage] ?? 0;
      lines[stage].push([time(row.hour) + hourMs, sum]);
    }
  }
  return lines;
}

/** Draws `hours` into `root` (the <svg>), and its legend into `legend` (a list). */
export function drawProgress(root, legend, hours) {
  const lines = cumulative(hours);
  const points = Object.values(lines).flat();
  root.replaceChildren();
  if (points.length === 0) {
    root.append(
      svg(
        root,
        'text',
        { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'empty' },
        'Nothing started yet.',
      ),
    );
    legend.replaceChildren();
    return;
  }
  const start = Math.min(...points.map(([t]) => t));
  const end = Math.max(...points.map(([t]) => t));
  const top = Math.max(1, ...points.map(([, v]) => v));
  const x = (t) =>
    pad.left + ((t - start) / Math.max(end - start, hourMs)) * (width - pad.left - pad.right);
  const y = (v) => height - pad.bottom - (v / top) * (height - pad.top - pad.bottom);

  const axes = svg(root, 'g', { class: 'axes' });
  for (const value of [0, Math.round(top / 2), top]) {
    axes.append(
      svg(root, 'line', {
        x1: pad.left,
        x2: width - pad.right,
        y1: y(value),
        y2: y(value),
        class: 'grid',
      }),
      svg(root, 'text', { x: pad.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, String(value)),
    );
  }
  const label = (t) =>
    new Date(t).toLocaleString([], {
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
  axes.append(
    svg(root, 'text', { x: pad.left, y: height - 8, 'text-anchor': 'start' }, label(start)),
    svg(root, 'text', { x: width - pad.right, y: height - 8, 'text-anchor': 'end' }, label(end)),
  );
  root.append(axes);

  for (const [stage] of series) {
    const path = lines[stage]
      .map(([t, v], i) => `${i === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`)
      .join(' ');
    const line = svg(root, 'path', { d: path, class: `line ${stage}`, 'data-series': stage });
    const last = lines[stage].at(-1);
    line.append(svg(root, 'title', {}, `${stage}: ${last?.[1] ?? 0}`));
    root.append(line);
  }
  legend.replaceChildren(
    ...series.map(([stage, name]) => {
      const item = document.createElement('li');
      item.className = stage;
      item.textContent = `${name} ${lines[stage].at(-1)?.[1] ?? 0}`;
      return item;
    }),
  );
}
