// Small helpers shared by the dev phone's modules.

export const $ = (id) => document.getElementById(id);
export const h = (tag, attrs = {}, ...children) => {
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
export const svg = (tag, attrs = {}) => {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  return { ok: res.ok, status: res.status, data };
}
export const say = (text) => {
  $('status').textContent = text ?? '';
};
export const banner = (text, tone = 'error') => {
  $('banner').hidden = !text;
  $('banner').className = `banner ${tone}`;
  $('banner').textContent = text ?? '';
};

export const time = (ms) =>
  new Date(ms).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
export const money = (n) => (Math.round(n * 1e4) / 1e4).toString();
