import { el, getJson, linkCell, num, setUpHeader, showError } from './dashboard.js';

const refreshMs = 5000;
const columns = [
  'started',
  'completed',
  'opted_out',
  'errored',
  'expired',
  'sent',
  'delivered',
  'failed',
];
const locationSelect = document.getElementById('location');
let period = 'today';
let last;

const query = (params) => new URLSearchParams(params).toString();

function render(overview) {
  last = overview;
  const chosen = locationSelect.value;
  const known = new Set([...locationSelect.options].map((option) => option.value));
  for (const name of overview.locations) {
    if (!known.has(name)) locationSelect.append(el('option', name, { value: name }));
  }
  const shown = (row) => !chosen || row.location === chosen;

  const bots = document.querySelector('#bots tbody');
  const rows = overview.bots.filter(shown).map((row) => {
    const tr = el('tr');
    const tally = row[period];
    tr.append(
      el('td', row.location),
      linkCell(
        row.bot,
        `/admin/bots/${encodeURIComponent(row.location)}/${encodeURIComponent(row.bot)}`,
      ),
      num(row.active),
      ...columns.map((name) => num(tally[name])),
      linkCell('results', `/admin/results?${query({ bot: row.bot, location: row.location })}`),
    );
    return tr;
  });
  bots.replaceChildren(...rows);
  document.getElementById('bots-empty').hidden = rows.length > 0;

  const campaigns = document.querySelector('#campaign-table tbody');
  const lines = overview.campaigns.filter(shown).map((campaign) => {
    const tr = el('tr');
    const share = campaign.total === 0 ? 0 : campaign.done / campaign.total;
    const bar = el('td');
    const meter = el('progress', null, { max: '1', value: String(share) });
    bar.append(meter, el('span', ` ${Math.round(share * 100)}%`, { class: 'muted' }));
    tr.append(
      el('td', campaign.location),
      linkCell(
        campaign.name,
        `/admin/campaigns/${encodeURIComponent(campaign.location)}/${encodeURIComponent(campaign.name)}`,
      ),
      el('td', campaign.bot),
      el('td', campaign.status, { class: `status ${campaign.status}` }),
      num(campaign.total),
      num(campaign.done),
      bar,
      linkCell(
        'results',
        `/admin/results?${query({ bot: campaign.bot, location: campaign.location, campaign: campaign.name })}`,
      ),
    );
    return tr;
  });
  campaigns.replaceChildren(...lines);
  document.getElementById('campaigns-empty').hidden = lines.length > 0;
  document.getElementById('updated').textContent =
    `Updated ${new Date(overview.at).toLocaleTimeString()}`;
}

async function refresh() {
  try {
    render(await getJson('/admin/api/overview'));
    showError(undefined);
  } catch (error) {
    showError(error);
  }
}

for (const button of document.querySelectorAll('[data-period]')) {
  button.addEventListener('click', () => {
    period = button.dataset.period;
    for (const other of document.querySelectorAll('[data-period]')) {
      other.setAttribute('aria-pressed', String(other === button));
    }
    if (last) render(last);
  });
}
locationSelect.addEventListener('change', () => last && render(last));

setUpHeader().catch(showError);
refresh();
setInterval(refresh, refreshMs);
