import { el, getJson, num, setUpHeader, showError } from './dashboard.js';

const form = document.getElementById('query');
const fixed = ['location', 'phone', 'bot', 'startedAt', 'endedAt', 'endCode', 'campaign', 'row'];
const limit = 50;
let offset = 0;

/** The form's filled fields, as the API's query. */
function selection() {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (value) params.set(name, String(value));
  return params;
}

async function show() {
  const params = selection();
  document.getElementById('csv').href = `/admin/api/results.csv?${params}`;
  if (!params.get('bot')) return;
  params.set('limit', String(limit));
  params.set('offset', String(offset));
  try {
    const page = await getJson(`/admin/api/results?${params}`);
    render(page);
    showError(undefined);
  } catch (error) {
    showError(error);
  }
}

function render(page) {
  const fields = [];
  for (const result of page.results) {
    for (const name of Object.keys(result.fields)) if (!fields.includes(name)) fields.push(name);
  }
  const head = el('tr');
  head.append(...[...fixed, ...fields].map((name) => el('th', name)));
  document.querySelector('#results thead').replaceChildren(head);
  const rows = page.results.map((result) => {
    const tr = el('tr');
    tr.append(
      ...fixed.map((name) => el('td', result[name] ?? '')),
      ...fields.map((name) => {
        const value = result.fields[name];
        if (typeof value === 'number') return num(value);
        return el(
          'td',
          value === undefined || value === null
            ? ''
            : typeof value === 'string'
              ? value
              : JSON.stringify(value),
        );
      }),
    );
    return tr;
  });
  document.querySelector('#results tbody').replaceChildren(...rows);
  document.getElementById('results-empty').hidden = rows.length > 0;
  document.getElementById('page').textContent =
    rows.length > 0 ? `${page.offset + 1}–${page.offset + rows.length}` : '';
  document.getElementById('prev').disabled = page.offset === 0;
  document.getElementById('next').disabled = page.next === undefined;
}

async function setUp() {
  const overview = await getJson('/admin/api/overview');
  const bots = [...new Set(overview.bots.map((row) => row.bot))];
  form.elements.bot.replaceChildren(...bots.map((bot) => el('option', bot, { value: bot })));
  form.elements.location.append(
    ...overview.locations.map((name) => el('option', name, { value: name })),
  );
  const wanted = new URLSearchParams(window.location.search);
  for (const name of ['bot', 'location', 'from', 'to', 'campaign']) {
    const value = wanted.get(name);
    if (value) form.elements[name].value = value;
  }
  await show();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  offset = 0;
  window.history.replaceState(null, '', `/admin/results?${selection()}`);
  show();
});
document.getElementById('prev').addEventListener('click', () => {
  offset = Math.max(0, offset - limit);
  show();
});
document.getElementById('next').addEventListener('click', () => {
  offset += limit;
  show();
});

setUpHeader().catch(showError);
setUp().catch(showError);
