import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Response } from 'express';

const pageDir = new URL('./page/', import.meta.url);
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** The dashboard's files, read once: plain HTML, CSS and scripts, no build step. */
const files = new Map(
  readdirSync(pageDir)
    .filter((name) => extname(name) in types)
    .map((name) => [name, readFileSync(new URL(name, pageDir), 'utf8')]),
);

/** The scripts and stylesheets a page may load (`/admin/assets/:file`). */
export const assetNames: readonly string[] = [...files.keys()].filter(
  (name) => !name.endsWith('.html') && name !== 'login.css',
);

/**
 * Headers of every dashboard answer: its own scripts and styles only (no inline script, nothing
 * from another host), never framed, never cached (figures and results change, and may be personal).
 */
function secure(res: Response): Response {
  return res.set({
    'content-security-policy':
      "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the login
    // form's POST, and the Origin check refuses it. Other hosts still get no referrer.
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  });
}

/** The dashboard's sections, in the header of every page (`{{nav}}`): one place, so none drifts. */
const sections = [
  { label: 'Overview', href: '/admin', pages: ['overview.html'] },
  { label: 'Results', href: '/admin/results', pages: ['results.html'], id: 'results-link' },
  { label: 'Campaigns', href: '/admin/campaigns', pages: ['campaigns.html', 'campaign.html'] },
];

/** The brand and the sections' links, the one of `page` marked current. */
function navOf(page: string): string {
  const links = sections.map(
    ({ label, href, pages, id }) =>
      `<a${id ? ` id="${id}"` : ''} href="${href}"${pages.includes(page) ? ' aria-current="page"' : ''}>${label}</a>`,
  );
  return `<a class="brand" href="/admin">replyflow</a>\n    <nav>${links.join('')}</nav>`;
}

/**
 * Sends `page/<name>` with its placeholders (`{{csrf}}`, `{{message}}`) filled, HTML-escaped,
 * and `{{nav}}` replaced by the header's links.
 */
export function sendFile(res: Response, name: string, values: Record<string, string> = {}): void {
  const text = files.get(name);
  if (text === undefined) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  const filled = name.endsWith('.html')
    ? text
        .replace('{{nav}}', navOf(name))
        .replace(/\{\{(\w+)\}\}/g, (_, key: string) => escapeHtml(values[key] ?? ''))
    : text;
  secure(res)
    .type(types[extname(name)] ?? 'text/plain')
    .send(filled);
}

/** 401 to a browser: a page that says so and links to the login. */
export function unauthorizedPage(res: Response): void {
  sendFile(res.status(401), 'unauthorized.html');
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}
