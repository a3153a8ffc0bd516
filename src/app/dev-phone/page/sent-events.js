import { $, api, h } from './dom.js';

// The "Sent events" card: what the dev receiver (/dev/receiver) took from the bots, newest
// first, with what the developer's own receivers answered to each.

const kept = 500;
const events = new Map(); // id → entry, in arrival order

const clock = (iso) =>
  new Date(iso).toLocaleString([], {
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });

/** Loads what the receiver took so far (a reload or a resync loses nothing). */
export async function loadSentEvents(server) {
  const chosen = $('events-bot').value;
  $('events-bot').replaceChildren(
    h('option', { value: '', text: 'every bot' }),
    ...server.bots.map((b) => h('option', { value: b.id, text: b.id })),
  );
  if (server.bots.some((b) => b.id === chosen)) $('events-bot').value = chosen;
  if (!server.receiver) {
    $('events-explain').textContent =
      'This server has no dev receiver: the bots\u2019 events are not shown here.';
    return;
  }
  const { ok, data } = await api('GET', '/dev/receiver/events');
  if (!ok) return;
  events.clear();
  for (const entry of [...data.events].reverse()) events.set(entry.id, entry);
  renderSentEvents();
}

/** A `webhook` frame: an event taken, or an answer to one. */
export function sentEvent(entry) {
  events.set(entry.id, entry);
  while (events.size > kept) events.delete(events.keys().next().value);
  renderSentEvents();
}

function answerTag(answer) {
  const said = answer.status ? String(answer.status) : answer.error;
  return h('span', {
    class: `tag ${answer.ok ? '' : 'errored'}`,
    'data-testid': 'event-answer',
    title: `your receiver ${answer.receiver} answered in ${answer.durationMs} ms`,
    text: `${answer.receiver}: ${said}`,
  });
}

export function renderSentEvents() {
  const bot = $('events-bot').value;
  const shown = [...events.values()].reverse().filter((e) => !bot || e.bot === bot);
  const open = new Set(
    [...document.querySelectorAll('#events-list details[open]')].map((d) => d.dataset.id),
  );
  $('events-list').replaceChildren(
    ...(shown.length === 0
      ? [h('li', { class: 'muted small', text: 'No event yet: start a bot and answer it.' })]
      : shown.map((e) =>
          h(
            'li',
            { class: 'sent-event', 'data-testid': 'sent-event', 'data-type': e.type },
            h(
              'details',
              { 'data-id': e.id, open: open.has(e.id) },
              h(
                'summary',
                {},
                h('span', { class: 'event-type', 'data-testid': 'event-type', text: e.type }),
                h('span', { class: 'event-bot', text: e.bot }),
                h('span', { class: 'event-phone', text: e.maskedPhone }),
                h('time', { datetime: e.timestamp, text: clock(e.timestamp) }),
                e.copies > 1 ? h('span', { class: 'tag outdated', text: `×${e.copies}` }) : '',
                ...e.answers.map(answerTag),
              ),
              h('pre', { 'data-testid': 'event-json', text: JSON.stringify(e.event, null, 2) }),
            ),
          ),
        )),
  );
}

$('events-bot').onchange = renderSentEvents;
