// Shared by the dashboard's pages: JSON reads, the session's CSRF token, the header's role and
// logout, and the elements the tables are built of (text only: nothing read is parsed as HTML).

/** GETs `path` as JSON; a lost session goes back to the login. */
export async function getJson(path) {
  const answer = await fetch(path, { headers: { accept: 'application/json' } });
  if (answer.status === 401) {
    window.location.assign('/admin/login');
    throw new Error('logged out');
  }
  const body = await answer.json();
  if (!answer.ok) throw new Error(body.error ?? `${answer.status}`);
  return body;
}

/** The session's CSRF token: from the page, else from /admin/api/session. */
export async function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content');
  if (meta) return meta;
  return (await getJson('/admin/api/session')).csrfToken ?? '';
}

/** Shows who is logged in and wires the logout button. */
export async function setUpHeader() {
  const session = await getJson('/admin/api/session');
  const role = document.getElementById('role');
  role.textContent = session.role === 'read' ? 'read-only' : 'full access';
  role.dataset.role = session.role;
  const logout = document.getElementById('logout');
  if (session.via !== 'cookie') return session;
  logout.hidden = false;
  logout.addEventListener('click', async () => {
    await fetch('/admin/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': await csrfToken(), accept: 'application/json' },
    });
    window.location.assign('/admin/login');
  });
  return session;
}

/** An element with text and attributes. */
export function el(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** A table cell holding a number, aligned right, with thousands separators. */
export function num(value) {
  return el('td', new Intl.NumberFormat().format(value ?? 0), { class: 'num' });
}

/** A table cell holding a link. */
export function linkCell(text, href) {
  const cell = el('td');
  cell.append(el('a', text, { href }));
  return cell;
}

/** Shows an error under the page, or hides it. */
export function showError(error) {
  const box = document.getElementById('error');
  box.hidden = !error;
  box.textContent = error ? `Could not read the figures: ${error.message}` : '';
}
