import { campaignPage, sendChange, stateGroups } from './campaign-format.js';
import { el, getJson, num, setUpHeader, showError } from './dashboard.js';

const refreshMs = 10000;
const form = document.getElementById('upload');
const createButton = document.getElementById('create');
let full = false;
/** The options and file of the last dry run that answered, which Create sends again. */
let checked;

function renderList(overview) {
  const lines = overview.campaigns.map((campaign) => {
    const groups = stateGroups(campaign.recipients);
    const share = campaign.total === 0 ? 0 : campaign.done / campaign.total;
    const name = el('td');
    name.append(el('a', campaign.name, { href: campaignPage(campaign.location, campaign.name) }));
    const bar = el('td');
    bar.append(
      el('progress', null, { max: '1', value: String(share) }),
      el('span', ` ${Math.round(share * 100)}%`, { class: 'muted' }),
    );
    const tr = el('tr', null, { 'data-campaign': `${campaign.location}/${campaign.name}` });
    tr.append(
      el('td', campaign.location),
      name,
      el('td', campaign.bot),
      el('td', campaign.status, { class: `status ${campaign.status}` }),
      num(campaign.total),
      ...['waiting', 'started', 'skipped', 'failed'].map((group) => {
        const cell = num(groups[group]);
        cell.dataset.recipientState = group;
        return cell;
      }),
      bar,
    );
    return tr;
  });
  document.querySelector('#campaign-list tbody').replaceChildren(...lines);
  document.getElementById('campaigns-empty').hidden = lines.length > 0;
  document.getElementById('updated').textContent =
    `Updated ${new Date(overview.at).toLocaleTimeString()}`;
}

/** Fills the form's locations and bots once (a choice made stays). */
function fillChoices(overview) {
  const fill = (select, names) => {
    if (select.options.length > 0) return;
    select.append(...names.map((name) => el('option', name, { value: name })));
  };
  fill(form.elements.location, overview.locations);
  fill(form.elements.bot, [...new Set(overview.bots.map((row) => row.bot))]);
}

async function refresh() {
  try {
    const overview = await getJson('/admin/api/overview');
    renderList(overview);
    fillChoices(overview);
    showError(undefined);
  } catch (error) {
    showError(error);
  }
}

/** The upload's path for the form's options, a dry run or not. */
function uploadPath(options, dryRun) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(options)) if (value) query.set(key, value);
  if (dryRun) query.set('dryRun', 'true');
  return `/admin/campaigns?${query}`;
}

/** JSON lines by the file's name or type, else CSV. */
function typeOf(file) {
  return /\.(jsonl|ndjson)$/i.test(file.name) || file.type === 'application/x-ndjson'
    ? 'application/x-ndjson'
    : 'text/csv';
}

function renderReport(report) {
  document.getElementById('report').hidden = false;
  document.getElementById('report-summary').textContent =
    `${report.rows} rows: ${report.accepted} to send, ${report.excluded} excluded.` +
    (report.firstSendAt ? ` First send ${new Date(report.firstSendAt).toLocaleString()}.` : '');
  const reasons = document.getElementById('report-reasons');
  reasons.replaceChildren(
    ...Object.entries(report.byReason ?? {}).flatMap(([reason, count]) => [
      el('dt', reason),
      el('dd', count, { 'data-reason': reason }),
    ]),
  );
  const bad = (report.errors ?? []).map((row) => {
    const tr = el('tr', null, { 'data-line': String(row.line), 'data-reason': row.reason });
    tr.append(num(row.line), el('td', row.reason), el('td', row.message));
    return tr;
  });
  if (bad.length === 0) {
    const none = el('tr');
    none.append(el('td', 'No bad rows.', { colspan: '3', class: 'muted' }));
    bad.push(none);
  }
  document.querySelector('#bad-rows tbody').replaceChildren(...bad);
  const more = document.getElementById('bad-rows-more');
  more.hidden = !(report.errorCount > (report.errors ?? []).length);
  more.textContent = `${report.errorCount} bad rows in all: the first ${report.errors?.length} are shown.`;
  const first = (report.preview ?? []).map((row) => {
    const tr = el('tr', null, { 'data-line': String(row.line) });
    if ('excluded' in row) {
      tr.append(
        num(row.line),
        el('td'),
        el('td', `excluded: ${row.excluded}`),
        el('td', row.message),
      );
    } else {
      tr.append(
        num(row.line),
        el('td', row.phone),
        el('td', row.at),
        el('td', JSON.stringify(row.input)),
      );
    }
    return tr;
  });
  document.querySelector('#preview-rows tbody').replaceChildren(...first);
}

function formOptions() {
  const value = (name) => form.elements[name].value.trim();
  return {
    location: value('location'),
    bot: value('bot'),
    name: value('name'),
    at: value('at'),
    rate: value('rate'),
  };
}

/** Shows why an upload was refused (the server's message), or hides it. */
function showUploadError(error) {
  const box = document.getElementById('upload-error');
  box.hidden = !error;
  box.textContent = error ? `Refused: ${error.message}` : '';
}

async function upload(options, file, dryRun) {
  return sendChange(uploadPath(options, dryRun), { body: file, type: typeOf(file) });
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const file = form.elements.file.files[0];
  if (!file) return;
  const options = formOptions();
  document.getElementById('upload-done').hidden = true;
  checked = undefined;
  createButton.disabled = true;
  try {
    const { body } = await upload(options, file, true);
    renderReport(body);
    checked = { options, file };
    createButton.disabled = !full || body.accepted === 0;
    showUploadError(undefined);
  } catch (error) {
    document.getElementById('report').hidden = true;
    showUploadError(error);
  }
});

// Any change to the form asks for a new dry run before Create.
form.addEventListener('input', () => {
  checked = undefined;
  createButton.disabled = true;
});

createButton.addEventListener('click', async () => {
  if (!checked) return;
  createButton.disabled = true;
  try {
    const { status, body } = await upload(checked.options, checked.file, false);
    const done = document.getElementById('upload-done');
    done.hidden = false;
    done.textContent = `Campaign ${body.campaign?.name}: ${status === 201 ? 'created' : 'imported again'}, ${body.campaign?.status}.`;
    checked = undefined;
    showUploadError(undefined);
    await refresh();
  } catch (error) {
    showUploadError(error);
  }
});

setUpHeader()
  .then((session) => {
    full = session.role === 'full';
    createButton.hidden = !full;
    document.getElementById('upload-read-only').hidden = full;
    document.getElementById('dry-run').disabled = !full;
  })
  .catch(showError);
refresh();
setInterval(refresh, refreshMs);
