// The thread: one element per entry, in the server's order (`seq`).

import { $, h, money, time } from './dom.js';

/** seq → the element drawn for it, and what it was drawn from. */
const rendered = new Map();

export function renderThread(state) {
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
    const el = renderEntry(state, entry);
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

function renderEntry(state, entry) {
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
