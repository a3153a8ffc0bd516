import { el, getJson, setUpHeader, showError } from './dashboard.js';

const refreshMs = 5000;
const ref = window.location.pathname.split('/').pop();
const when = (ms) => (ms === undefined ? '' : new Date(ms).toLocaleString());
const money = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });

function fact(name, value, id) {
  return [el('dt', name), el('dd', value ?? '—', id ? { id } : {})];
}

/** What the service said of an outbound message: status, reason, parts, encoding, price. */
function delivery(entry) {
  const facts = [];
  if (entry.status) facts.push(entry.status);
  if (entry.reason) facts.push(entry.reason);
  if (entry.parts !== undefined) facts.push(`${entry.parts} part${entry.parts === 1 ? '' : 's'}`);
  if (entry.encoding) facts.push(entry.encoding);
  if (entry.price !== undefined) facts.push(`price ${money.format(entry.price)}`);
  return facts.join(' · ');
}

function render(transcript) {
  const run = transcript.conversation;
  document.getElementById('title').textContent = `${transcript.phone} · ${transcript.location}`;
  if (run) {
    const link = document.getElementById('bot-link');
    link.textContent = run.bot;
    link.setAttribute(
      'href',
      `/admin/bots/${encodeURIComponent(transcript.location)}/${encodeURIComponent(run.bot)}`,
    );
  }
  document
    .getElementById('run')
    .replaceChildren(
      ...fact('Phone', transcript.phone, 'phone'),
      ...fact('Bot', run && `${run.bot} (version ${run.version})`),
      ...fact('Status', run?.status, 'status'),
      ...fact('State', run?.state, 'state'),
      ...fact('Started', run && when(run.startedAt)),
      ...fact('Last activity', run && when(run.updatedAt)),
      ...fact('End code', run?.endCode, 'end-code'),
      ...(run?.endedAt !== undefined ? fact('Ended', when(run.endedAt)) : []),
    );

  const items = transcript.entries.map((entry) => {
    const li = el('li', null, {
      class: `message ${entry.direction}`,
      'data-direction': entry.direction,
      'data-status': entry.status ?? (entry.direction === 'in' ? 'received' : ''),
    });
    li.append(
      el('p', entry.body, { class: 'body' }),
      el(
        'p',
        [when(entry.at), entry.direction === 'out' ? delivery(entry) : 'received']
          .filter(Boolean)
          .join(' · '),
        { class: 'meta muted' },
      ),
    );
    if (entry.stateAfter) {
      li.append(
        el('p', `→ ${entry.stateAfter}`, { class: 'state-after', 'data-state': entry.stateAfter }),
      );
    }
    return li;
  });
  document.getElementById('transcript').replaceChildren(...items);
  document.getElementById('transcript-empty').hidden = items.length > 0;

  const timers = (run?.timers ?? []).map((timer) => {
    const tr = el('tr', null, { 'data-timer': timer.id });
    tr.append(el('td', timer.id), el('td', timer.event), el('td', when(timer.dueAt)));
    return tr;
  });
  document.querySelector('#timers tbody').replaceChildren(...timers);
  document.getElementById('timers-empty').hidden = timers.length > 0;

  const fields = Object.entries(run?.result ?? {}).map(([name, value]) => {
    const tr = el('tr', null, { 'data-field': name });
    tr.append(el('td', name), el('td', typeof value === 'string' ? value : JSON.stringify(value)));
    return tr;
  });
  document.querySelector('#result tbody').replaceChildren(...fields);
  document.getElementById('result-empty').hidden = fields.length > 0;
  document.getElementById('updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
}

async function refresh() {
  try {
    render(await getJson(`/admin/api/conversations/${encodeURIComponent(ref)}`));
    showError(undefined);
    return true;
  } catch (error) {
    showError(error);
    return false;
  }
}

setUpHeader().catch(showError);
// A live conversation moves on: read it again while the page is open, as the bot page does.
refresh().then((found) => found && setInterval(refresh, refreshMs));
