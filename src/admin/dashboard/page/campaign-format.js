// Shared by the campaign pages: recipients per state, the page of a campaign, and the changes
// (pause, resume, cancel, an upload) sent with the session's CSRF token.
import { csrfToken } from './dashboard.js';

/** Recipient states still to come (`scheduled`, `held`): the rest is done. */
const waiting = new Set(['scheduled', 'held']);

/** Recipients per group: waiting, started, skipped (any reason), failed (any reason). */
export function stateGroups(recipients) {
  const groups = { waiting: 0, started: 0, skipped: 0, failed: 0 };
  for (const [state, count] of Object.entries(recipients ?? {})) {
    const [kind] = state.split(':');
    if (waiting.has(kind)) groups.waiting += count;
    else if (kind in groups) groups[kind] += count;
  }
  return groups;
}

/** The page of one campaign. */
export function campaignPage(location, name) {
  return `/admin/campaigns/${encodeURIComponent(location)}/${encodeURIComponent(name)}`;
}

/**
 * Sends a change (POST) with the CSRF token and answers its JSON body with its status; a
 * refusal throws with the server's message. A lost session goes back to the login.
 */
export async function sendChange(path, { body, type } = {}) {
  const headers = { 'x-csrf-token': await csrfToken(), accept: 'application/json' };
  if (type) headers['content-type'] = type;
  const answer = await fetch(path, { method: 'POST', headers, body });
  if (answer.status === 401) {
    window.location.assign('/admin/login');
    throw new Error('logged out');
  }
  const json = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(json.error ?? `${answer.status}`);
  return { status: answer.status, body: json };
}
