// The dev phone. Everything shown comes from the server (`/dev/...`): a reload loses nothing.
// Thread entries are ordered by the server's sequence number, never by arrival here.

const $ = (id) => document.getElementById(id);
const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children.filter((c) => c !== undefined && c !== null && c !== false));
  return el;
};
const svg = (tag, attrs = {}) => {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

const state = {
  server: null, // GET /dev/state
  phone: null, // digits of the number shown
  loadedSeq: 0, // frames up to this seq are already in the phone's snapshot
  entries: [],
  sms: {},
  conversation: null,
  charts: new Map(),
};
const rank = { pending: 0, sent: 1, delivered: 2, errored: 2 };

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  return { ok: res.ok, status: res.status, data };
}
const say = (text) => {
  $('status').textContent = text ?? '';
};
const banner = (text, tone = 'error') => {
  $('banner').hidden = !text;
  $('banner').className = `banner ${tone}`;
  $('banner').textContent = text ?? '';
};

const time = (ms) =>
  new Date(ms).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
const money = (n) => (Math.round(n * 1e4) / 1e4).toString();

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
  if (bots.some((b) => b.id === chosen)) $('bot').value = chosen;
  else prefillInput();
  if (errors?.length) {
    banner(
      `Bot files that failed to load (the previous version keeps serving):\n${errors.map((e) => `${e.file}: ${e.message}`).join('\n')}`,
    );
  } else if (!$('banner').classList.contains('info')) banner('');
}

function prefillInput() {
  const bot = state.server?.bots.find((b) => b.id === $('bot').value);
  $('input').value = JSON.stringify(bot?.exampleInput ?? {}, null, 2);
  if (!state.conversation) renderPanel();
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
  renderThread();
  renderPanel();
}

// ---- the thread ----

/** seq → the element drawn for it, and what it was drawn from. */
const rendered = new Map();

function renderThread() {
  const thread = $('thread');
  const nearBottom = thread.scrollHeight - thread.scrollTop - thread.clientHeight < 80;
  if (state.entries.length === 0) {
    thread.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        'Nothing here yet. Start a bot for this number, or broadcast from the short code and answer with a keyword.',
      ),
    );
    return;
  }
  // Entries that did not change keep their element: no flicker, and a selection survives.
  const children = state.entries.map((entry) => {
    const sig = `${state.phone}:${entry.kind === 'sms' ? JSON.stringify(state.sms[entry.smsId]) : ''}`;
    const known = rendered.get(entry.seq);
    if (known?.sig === sig) return known.el;
    const el = renderEntry(entry);
    rendered.set(entry.seq, { el, sig });
    return el;
  });
  const same =
    children.length === thread.children.length &&
    children.every((c, i) => thread.children[i] === c);
  if (!same) thread.replaceChildren(...children);
  if (nearBottom || thread.dataset.phone !== state.phone) thread.scrollTop = thread.scrollHeight;
  thread.dataset.phone = state.phone;
}

function renderEntry(entry) {
  if (entry.kind === 'notice') {
    return h(
      'div',
      { class: `notice ${entry.tone}`, 'data-testid': 'notice', 'data-seq': entry.seq },
      h('time', { text: time(entry.at) }),
      entry.text,
    );
  }
  if (entry.kind === 'reply') {
    return h(
      'div',
      {
        class: `msg me${entry.error ? ' failed' : ''}`,
        'data-testid': 'reply',
        'data-seq': entry.seq,
      },
      h('div', { class: 'bubble', text: entry.body }),
      h(
        'div',
        { class: 'meta' },
        h('time', { text: time(entry.at) }),
        entry.error
          ? h('span', { class: 'error', text: `not delivered: ${entry.error}` })
          : '· sent',
      ),
    );
  }
  const sms = state.sms[entry.smsId];
  if (!sms) return h('div', { class: 'notice', text: 'a message the emulator no longer holds' });
  const reason = sms.status === 'errored' && sms.statusReason ? ` · ${sms.statusReason}` : '';
  return h(
    'div',
    {
      class: `msg them ${sms.status}`,
      'data-testid': 'sms',
      'data-seq': entry.seq,
      'data-sms': sms.id,
      'data-status': sms.status,
    },
    h('div', {
      class: 'from',
      text: sms.from === '' ? `short code ${state.server.shortCode}` : sms.from,
    }),
    h('div', { class: 'bubble', text: sms.body }),
    h(
      'div',
      { class: 'meta' },
      h('time', { text: time(entry.at) }),
      h('span', {
        class: `status-pill ${sms.status}`,
        'data-testid': 'sms-status',
        text: `${sms.status}${reason}`,
        title: sms.statusReason || undefined,
      }),
      h('span', {
        class: 'details',
        text: `${sms.parts} part${sms.parts === 1 ? '' : 's'} · ${sms.encoding} · ${sms.characters} chars · price ${money(sms.price)}`,
      }),
    ),
  );
}

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

const leaves = (paths) => paths.filter((p) => !paths.some((o) => o.startsWith(`${p}.`)));

function drawChart(chart, c) {
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

// ---- live updates ----

function connect() {
  const events = new EventSource(`/dev/events?after=${state.server.seq}`);
  const on = (type, handle) =>
    events.addEventListener(type, (e) => handle(JSON.parse(e.data), Number(e.lastEventId)));
  on('entry', ({ entry, sms }, seq) => {
    if (entry.phone !== state.phone || seq <= state.loadedSeq) return;
    if (sms && (!state.sms[sms.id] || rank[sms.status] >= rank[state.sms[sms.id].status])) {
      state.sms[sms.id] = sms;
    }
    addEntry(entry);
    renderThread();
  });
  on('sms', ({ phone, sms }, seq) => {
    if (phone !== state.phone || seq <= state.loadedSeq) return;
    const known = state.sms[sms.id];
    if (known && rank[sms.status] < rank[known.status]) return;
    state.sms[sms.id] = sms;
    renderThread();
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
    renderThread();
    renderArmed([]);
  });
  on('clock', ({ now }) => setClock(now));
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
const wanted = location.hash.slice(1) || state.server.phones[0]?.phone;
if (wanted) await showPhone(wanted);
else {
  const { ok, data } = await api('POST', '/dev/phones', { phone: '+33 6 12 34 56 78' });
  if (ok) await showPhone(data.phone);
}
connect();
