import { drawProgress } from './campaign-chart.js';
import { sendChange } from './campaign-format.js';
import { el, getJson, num, setUpHeader, showError } from './dashboard.js';

const refreshMs = 10000;
const [, , , location, name] = window.location.pathname.split('/').map(decodeURIComponent);
const showPath = `/admin/campaigns/${encodeURIComponent(name)}?${new URLSearchParams({ location })}`;
const progressPath = `/admin/api/campaigns/${encodeURIComponent(location)}/${encodeURIComponent(name)}/progress`;
const stages = [
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['answered', 'answered'],
  ['completed', 'completed'],
  ['opted_out', 'opted out'],
  ['errored', 'errored'],
  ['expired', 'expired'],
  ['interrupted', 'interrupted'],
];
/** Which action each status allows. */
const allowed = {
  pause: (status) => status === 'active',
  resume: (status) => status === 'paused',
  cancel: (status) => status === 'active' || status === 'paused',
};
let full = false;
let status;

document.title = `replyflow · ${name}`;
document.getElementById('title').textContent = `${name} · ${location}`;

const schedule = (value) =>
  'at' in value ? `at ${value.at}` : `${value.offset} from ${value.relativeTo}`;
const late = (value) =>
  value.kind === 'skip' ? 'skipped' : `sent if within ${Math.round(value.ms / 60000)} min`;

function renderDefinition(campaign) {
  const rows = [
    ['Bot', campaign.bot],
    ['Schedule', schedule(campaign.schedule)],
    ['Rate', `${campaign.ratePerSecond}/s`],
    ['Window', campaign.window ?? 'any time'],
    ['Time zone', campaign.timeZone],
    ['Late', late(campaign.late)],
    ['Imports', campaign.generation],
    ['Created', new Date(campaign.createdAt).toLocaleString()],
    ['Updated', new Date(campaign.updatedAt).toLocaleString()],
  ];
  document
    .getElementById('definition')
    .replaceChildren(...rows.flatMap(([term, value]) => [el('dt', term), el('dd', value)]));
  const badge = document.getElementById('status');
  badge.textContent = campaign.status;
  badge.className = `status ${campaign.status}`;
  document
    .getElementById('results-link')
    .setAttribute(
      'href',
      `/admin/results?${new URLSearchParams({ bot: campaign.bot, location, campaign: name })}`,
    );
}

function renderRecipients(recipients, total) {
  const order = ['scheduled', 'held', 'started', 'skipped', 'failed'];
  const rank = (state) => order.indexOf(state.split(':')[0]);
  const rows = Object.entries(recipients)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([state, count]) => {
      const [kind, reason = ''] = state.split(':');
      const tr = el('tr', null, { 'data-recipient-state': state });
      const share = total === 0 ? 0 : Math.round((count / total) * 1000) / 10;
      tr.append(el('td', kind), el('td', reason.replaceAll('_', ' ')), num(count));
      tr.append(el('td', `${share}%`, { class: 'num' }));
      return tr;
    });
  const sum = el('tr', null, { class: 'total' });
  sum.append(el('td', 'total'), el('td'), num(total), el('td'));
  document.querySelector('#recipients tbody').replaceChildren(...rows, sum);
}

function renderFunnel(funnel) {
  const rows = stages.map(([stage, label]) => {
    const tr = el('tr', null, { 'data-stage': stage });
    tr.append(el('td', label), num(funnel[stage]));
    return tr;
  });
  document.querySelector('#funnel tbody').replaceChildren(...rows);
}

function renderButtons() {
  for (const action of Object.keys(allowed)) {
    const button = document.getElementById(action);
    button.hidden = !full;
    button.disabled = !full || !allowed[action](status);
  }
}

async function refresh() {
  try {
    const [shown, progress] = await Promise.all([getJson(showPath), getJson(progressPath)]);
    status = shown.campaign.status;
    renderDefinition(shown.campaign);
    renderRecipients(shown.recipients, shown.total);
    renderFunnel(shown.funnel);
    renderButtons();
    drawProgress(
      document.getElementById('progress-chart'),
      document.getElementById('chart-legend'),
      progress.hours,
    );
    document.getElementById('updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
    showError(undefined);
  } catch (error) {
    showError(error);
  }
}

for (const action of Object.keys(allowed)) {
  document.getElementById(action).addEventListener('click', async () => {
    if (
      action === 'cancel' &&
      !window.confirm(`Cancel ${name}? Nothing more is ever started for it.`)
    ) {
      return;
    }
    const done = document.getElementById('done');
    try {
      const path = `/admin/campaigns/${encodeURIComponent(name)}/${action}?${new URLSearchParams({ location })}`;
      const { body } = await sendChange(path);
      done.hidden = false;
      done.textContent =
        action === 'cancel'
          ? `Cancelled: ${body.cancelled} recipients will not be started.`
          : `Now ${body.campaign.status}.`;
      await refresh();
    } catch (error) {
      showError(error);
    }
  });
}

setUpHeader()
  .then((session) => {
    full = session.role === 'full';
    renderButtons();
  })
  .catch(showError);
refresh();
setInterval(refresh, refreshMs);
