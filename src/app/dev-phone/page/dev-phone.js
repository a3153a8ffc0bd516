import { $, api, banner, h, say, time } from './dom.js';
import { loadSentEvents, sentEvent } from './sent-events.js';
import { drawChart, leaves } from './statechart.js';
import { renderThread } from './thread.js';

// The dev phone. Everything shown comes from the server (`/dev/...`): a reload loses nothing.
// Thread entries are ordered by the server's sequence number, never by arrival here.

const state = {
  server: null, // GET /dev/state
  phone: null, // digits of the number shown
  loadedSeq: 0, // frames up to this seq are already in the phone's snapshot
  entries: [],
  sms: {},
  conversation: null,
  charts: new Map(),
  prefilled: undefined, // the example input last put in the form, while the developer keeps it
};
const rank = { pending: 0, sent: 1, delivered: 2, errored: 2 };

// ---- loading ----

// The dev clock may run ahead of this machine's (after +24 h): keep the difference and tick.
let clockOffset = 0;
function setClock(now) {
  clockOffset = now - Date.now();
  $('clock').textContent = time(now);
}
setInterval(() => {
  $('clock').textContent = time(Date.now() + clockOffset);
}, 15_000);

async function loadServer() {
  const { data } = await api('GET', '/dev/state');
  state.server = data;
  setClock(data.now);
  for (const b of document.querySelectorAll('[data-advance], #advance-form button, #advance-by')) {
    b.disabled = !data.canAdvance;
    if (!data.canAdvance) b.title = 'This server runs on the system clock, which cannot be moved';
  }
  for (const el of document.querySelectorAll('.short-code')) el.textContent = data.shortCode ?? '–';
  $('fail-reason').replaceChildren(
    ...data.failureReasons.map((r) => h('option', { value: r, text: r })),
  );
  renderBots(data);
  renderPicker();
  if (!data.emulated) {
    banner(
      'A real provider is configured: the phone cannot chat here. Unset REPLYFLOW_PROVIDER_URL (and the key pair) to use the built-in emulator.',
    );
  }
  return data;
}

function renderBots({ bots, errors }) {
  const chosen = $('bot').value;
  $('bot').replaceChildren(
    ...bots.map((b) =>
      h('option', {
        value: b.id,
        text: `${b.id}${b.keywords.length ? ` (${b.keywords.map((k) => k.toUpperCase()).join(', ')})` : ''}${b.fallback ? ' · fallback' : ''}`,
      }),
    ),
  );
  if (bots.some((b) => b.id === chosen)) {
    $('bot').value = chosen;
    refreshInput(); // a bot reloaded may have another example
  } else prefillInput();
  if (errors?.length) {
    banner(
      `Bot files that failed to load (the previous version keeps serving):\n${errors.map((e) => `${e.file}: ${e.message}`).join('\n')}`,
    );
  } else if (!$('banner').classList.contains('info')) banner('');
}

// The example input is computed by the server with the dev clock each time the form is filled
// (a bot's `exampleInput` may be a function of the time: an appointment the day after tomorrow).
let prefills = 0;
async function prefillInput() {
  const ticket = ++prefills;
  const { ok, data } = await api('GET', '/dev/bots');
  if (ticket !== prefills) return; // a newer one is on its way
  const bot = (ok ? data : (state.server?.bots ?? [])).find((b) => b.id === $('bot').value);
  state.prefilled = JSON.stringify(bot?.exampleInput ?? {}, null, 2);
  $('input').value = state.prefilled;
  if (bot?.exampleInputError) say(bot.exampleInputError);
  if (!state.conversation) renderPanel();
}

/** After the clock moved: the example again, unless the developer changed it. */
function refreshInput() {
  if ($('input').value === state.prefilled) prefillInput();
}

function renderPicker() {
  const phones = state.server?.phones ?? [];
  $('phone-picker').replaceChildren(
    ...phones.map((p) => h('option', { value: p.phone, text: p.display })),
  );
  if (state.phone) $('phone-picker').value = state.phone;
}

async function showPhone(phone) {
  state.phone = phone;
  history.replaceState(null, '', `#${phone}`);
  const { ok, data } = await api('GET', `/dev/phones/${phone}`);
  if (!ok) {
    say(data.error);
    return;
  }
  if (state.phone !== phone) return;
  state.loadedSeq = data.seq;
  state.entries = data.entries;
  state.sms = data.sms;
  state.conversation = data.conversation;
  $('phone-title').textContent = data.display;
  if (!state.server.phones.some((p) => p.phone === phone)) {
    state.server.phones.unshift({ phone, display: data.display });
  }
  renderPicker();
  renderArmed(data.armed);
  renderThread(state);
  renderPanel();
}

// ---- the thread ----

function addEntry(entry) {
  if (state.entries.some((e) => e.seq === entry.seq)) return;
  state.entries.push(entry);
  state.entries.sort((a, b) => a.seq - b.seq);
}

function renderArmed(reasons) {
  $('armed').textContent = reasons?.length ? `armed: ${reasons.join(', ')}` : '';
}

// ---- the side panel ----

async function renderPanel() {
  const c = state.conversation;
  const facts = $('facts');
  const botId = c?.bot ?? $('bot').value;
  if (!c) {
    facts.replaceChildren(
      h('dt', { text: 'Status' }),
      h('dd', { text: 'no conversation on this number yet' }),
    );
    $('context').textContent = '–';
  } else {
    const outdated = c.loadedVersion && c.loadedVersion !== c.version;
    facts.replaceChildren(
      h('dt', { text: 'Bot' }),
      h('dd', { 'data-testid': 'bot-id', text: c.bot }),
      h('dt', { text: 'Version' }),
      h(
        'dd',
        {},
        h('code', { text: c.version }),
        outdated ? h('span', { class: 'tag outdated', text: ` loaded: ${c.loadedVersion}` }) : '',
      ),
      h('dt', { text: 'State' }),
      h('dd', {
        class: 'state',
        'data-testid': 'state',
        text: leaves(c.activePaths)
          .map((p) => (p === '(machine)' ? '(top level)' : p))
          .join(' + '),
      }),
      h('dt', { text: 'Status' }),
      h(
        'dd',
        {},
        h('span', {
          class: `tag ${c.status}`,
          'data-testid': 'conversation-status',
          text: c.status,
        }),
        c.endedReason ? ` ${c.endedReason}` : '',
      ),
      c.optedOut ? h('dt', { text: 'Opt-out' }) : '',
      c.optedOut
        ? h(
            'dd',
            { 'data-testid': 'opted-out' },
            h('span', { class: 'tag errored', text: 'STOP' }),
            ' until START',
          )
        : '',
      h('dt', { text: 'Since' }),
      h('dd', { text: time(c.startedAt) }),
    );
    $('context').textContent = JSON.stringify(c.context, null, 2);
  }
  if (!botId) return;
  const bot = state.server.bots.find((b) => b.id === botId);
  const key = `${botId}@${bot?.version}`;
  if (!state.charts.has(key)) {
    state.charts.set(
      key,
      api('GET', `/dev/bots/${encodeURIComponent(botId)}/statechart`).then((r) => r.data),
    );
  }
  const chart = await state.charts.get(key);
  if (state.conversation !== c) return; // a newer render is on its way
  drawChart(chart, c);
}

// ---- live updates ----

function connect() {
  const events = new EventSource(`/dev/events?after=${state.server.seq}`);
  const on = (type, handle) =>
    events.addEventListener(type, (e) => handle(JSON.parse(e.data), Number(e.lastEventId)));
  on('entry', ({ entry, sms, armed }, seq) => {
    if (entry.phone !== state.phone || seq <= state.loadedSeq) return;
    if (armed) renderArmed(armed);
    if (sms && (!state.sms[sms.id] || rank[sms.status] >= rank[state.sms[sms.id].status])) {
      state.sms[sms.id] = sms;
    }
    addEntry(entry);
    renderThread(state);
  });
  on('sms', ({ phone, sms, armed }, seq) => {
    if (phone !== state.phone || seq <= state.loadedSeq) return;
    if (armed) renderArmed(armed);
    const known = state.sms[sms.id];
    if (known && rank[sms.status] < rank[known.status]) return;
    state.sms[sms.id] = sms;
    renderThread(state);
  });
  on('conversation', ({ phone, conversation }, seq) => {
    if (phone !== state.phone || seq <= state.loadedSeq) return;
    state.conversation = conversation;
    renderPanel();
  });
  on('phones', ({ phone, display }) => {
    if (!state.server.phones.some((p) => p.phone === phone)) {
      state.server.phones.unshift({ phone, display });
      renderPicker();
    }
  });
  on('reset', ({ phone }, seq) => {
    if (phone !== state.phone || seq <= state.loadedSeq) return;
    state.entries = [];
    renderThread(state);
    renderArmed([]);
  });
  on('clock', ({ now }) => {
    setClock(now);
    refreshInput();
  });
  on('webhook', (entry) => sentEvent(entry));
  on('bots', (data) => {
    Object.assign(state.server, { bots: data.bots, errors: data.errors });
    renderBots(data);
    if (data.reloaded?.length && !data.errors?.length) {
      banner(`Reloaded: ${data.reloaded.join(', ')}`, 'info');
      setTimeout(() => $('banner').classList.contains('info') && banner(''), 4000);
    }
    renderPanel();
  });
  events.addEventListener('resync', async () => {
    events.close();
    await loadServer();
    await loadSentEvents(state.server);
    await showPhone(state.phone);
    connect();
  });
}

// ---- actions ----

const needPhone = () => {
  if (!state.phone) say('Add a number first.');
  return state.phone;
};

$('phone-picker').onchange = () => showPhone($('phone-picker').value);
$('add-phone').onsubmit = async (event) => {
  event.preventDefault();
  const { ok, data } = await api('POST', '/dev/phones', { phone: $('new-phone').value });
  if (!ok) return say(data.error);
  $('new-phone').value = '';
  say('');
  await showPhone(data.phone);
};
$('bot').onchange = prefillInput;
$('start').onclick = async () => {
  if (!needPhone()) return;
  let input;
  try {
    input = JSON.parse($('input').value || '{}');
  } catch (error) {
    return say(`The input is not JSON: ${error.message}`);
  }
  const { ok, data } = await api('POST', '/dev/conversations', {
    bot: $('bot').value,
    phone: state.phone,
    input,
  });
  say(ok ? '' : data.error);
};
$('compose').onsubmit = async (event) => {
  event.preventDefault();
  const body = $('body').value.trim();
  if (!body || !needPhone()) return;
  $('body').value = '';
  const { ok, data } = await api('POST', `/dev/phones/${state.phone}/messages`, { body });
  say(ok && data.notified !== false ? '' : (data.error ?? data.reason));
};
$('body').onkeydown = (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('compose').requestSubmit();
  }
};
$('stop').onclick = async () => {
  if (!needPhone()) return;
  const { ok, data } = await api('POST', `/dev/phones/${state.phone}/messages`, { body: 'STOP' });
  say(ok && data.notified !== false ? '' : (data.error ?? data.reason));
};
$('broadcast-form').onsubmit = async (event) => {
  event.preventDefault();
  if (!needPhone()) return;
  const text = $('broadcast-body').value.trim();
  const { ok, data } = await api(
    'POST',
    `/dev/phones/${state.phone}/broadcast`,
    text ? { body: text } : {},
  );
  say(ok ? '' : data.error);
};
$('fail-form').onsubmit = async (event) => {
  event.preventDefault();
  if (!needPhone()) return;
  const { ok, data } = await api('POST', `/dev/phones/${state.phone}/next-failure`, {
    reason: $('fail-reason').value,
  });
  if (!ok) return say(data.error);
  renderArmed(data.armed);
};
$('reset').onclick = async () => {
  if (!needPhone()) return;
  const { ok, data } = await api('POST', `/dev/phones/${state.phone}/reset`);
  say(ok ? '' : data.error);
};
const advance = async (by) => {
  const { ok, data } = await api('POST', '/dev/clock/advance', { by });
  say(ok ? '' : data.error);
};
for (const b of document.querySelectorAll('[data-advance]'))
  b.onclick = () => advance(b.dataset.advance);
$('advance-form').onsubmit = (event) => {
  event.preventDefault();
  const by = $('advance-by').value.trim();
  if (by) advance(by);
};

// ---- start ----

await loadServer();
await loadSentEvents(state.server);
const wanted = location.hash.slice(1) || state.server.phones[0]?.phone;
if (wanted) await showPhone(wanted);
else {
  const { ok, data } = await api('POST', '/dev/phones', { phone: '+33 6 12 34 56 78' });
  if (ok) await showPhone(data.phone);
}
connect();
