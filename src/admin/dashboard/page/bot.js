import { el, getJson, num, setUpHeader, showError } from './dashboard.js';
import { drawChart, dropOffsByState, showFigures, stages } from './funnel-chart.js';

const refreshMs = 5000;
const [, , , location, bot] = window.location.pathname.split('/').map(decodeURIComponent);
const base = `/admin/api/bots/${encodeURIComponent(location)}/${encodeURIComponent(bot)}`;
let period = 'today';
let drawn;
let last;
let selected;
let cursor;

document.title = `replyflow · ${bot}`;
document.getElementById('title').textContent = `${bot} · ${location}`;
document
  .getElementById('results-link')
  .setAttribute('href', `/admin/results?${new URLSearchParams({ bot, location })}`);

const when = (ms) => (ms ? new Date(ms).toLocaleString() : '');

function render(funnel) {
  last = funnel;
  showFigures(drawn, funnel, period);
  const lost = [...dropOffsByState(funnel.dropOffs[period])].sort(([a], [b]) => a.localeCompare(b));
  document.querySelector('#dropoffs tbody').replaceChildren(
    ...lost.map(([state, counts]) => {
      const tr = el('tr', null, { 'data-state': state });
      tr.append(el('td', state), ...stages.map((stage) => num(counts[stage])));
      return tr;
    }),
  );
  document.getElementById('dropoffs-empty').hidden = lost.length > 0;
  const other = Object.entries(funnel.other[period]).sort(([, a], [, b]) => b - a);
  document.querySelector('#other-transitions tbody').replaceChildren(
    ...other.map(([step, count]) => {
      const cut = step.indexOf('>');
      const tr = el('tr', null, { 'data-transition': step });
      tr.append(el('td', step.slice(0, cut)), el('td', step.slice(cut + 1)), num(count));
      return tr;
    }),
  );
  document.getElementById('other-empty').hidden = other.length > 0;
  document.getElementById('updated').textContent =
    `Updated ${new Date(funnel.at).toLocaleTimeString()}`;
}

async function refresh() {
  try {
    render(await getJson(`${base}/funnel`));
    showError(undefined);
  } catch (error) {
    showError(error);
  }
}

/** Lists the conversations in `state` (from the start, or on from the cursor). */
async function listConversations(state, more = false) {
  const params = { state, limit: '50', ...(more && cursor ? { cursor } : {}) };
  try {
    const page = await getJson(`${base}/conversations?${new URLSearchParams(params)}`);
    if (state !== selected) return;
    const rows = page.conversations.map((c) => {
      const tr = el('tr', null, { 'data-ref': c.ref });
      const phone = el('td');
      phone.append(el('a', c.phone, { href: `/admin/conversations/${c.ref}` }));
      tr.append(phone, el('td', c.state), el('td', when(c.startedAt)), el('td', when(c.updatedAt)));
      return tr;
    });
    const body = document.querySelector('#conversations tbody');
    if (more) body.append(...rows);
    else body.replaceChildren(...rows);
    cursor = page.cursor ?? undefined;
    document.getElementById('more').hidden = !cursor;
    document.getElementById('conversations-empty').hidden = body.children.length > 0 || !!cursor;
    document.getElementById('conversations-note').textContent = page.partial
      ? 'Part of the records looked at: more may follow.'
      : '';
  } catch (error) {
    showError(error);
  }
}

function select(state) {
  selected = state;
  cursor = undefined;
  for (const g of document.querySelectorAll('#chart .node')) {
    g.classList.toggle('selected', g.dataset.state === state);
  }
  document.getElementById('state-conversations').hidden = false;
  document.getElementById('selected-state').textContent = state;
  document.querySelector('#conversations tbody').replaceChildren();
  listConversations(state);
}

document.getElementById('more').addEventListener('click', () => {
  if (selected) listConversations(selected, true);
});
for (const button of document.querySelectorAll('[data-period]')) {
  button.addEventListener('click', () => {
    period = button.dataset.period;
    for (const other of document.querySelectorAll('[data-period]')) {
      other.setAttribute('aria-pressed', String(other === button));
    }
    if (last) render(last);
  });
}

async function start() {
  try {
    const chart = await getJson(`${base}/statechart`);
    drawn = drawChart(document.getElementById('chart'), chart, select);
  } catch (error) {
    showError(error);
    return;
  }
  await refresh();
  setInterval(refresh, refreshMs);
}

setUpHeader().catch(showError);
start();
