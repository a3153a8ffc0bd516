import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../observability/logger.ts';
import {
  defaultBodyLimit,
  knownSecret,
  receiveNotification,
  type WebhookRouterOptions,
} from './create-webhook-router.ts';

/** Admits a webhook request, or answers it 503 itself and says no (`create-http-app.ts`). */
export type WebhookAdmission = (res: ServerResponse) => boolean;

/**
 * Takes the usual notification, `POST /webhooks/<location>/<secret>` with a plain UTF-8 body,
 * straight from Node's server, and says whether it did. Whatever it leaves (another route, a
 * compressed body, another charset, an odd path) goes to the Express app, whose webhook route
 * answers the same way: same admission, same 404 for an unknown location or a wrong secret,
 * same 413 past the limit, same answers. The route costs a turn of the reply loop its layers
 * (the ops routes walked first, the router, body-parser, Express's response helpers): about a
 * tenth of the web role's CPU per notification in the reply-loop bench (docs/benchmarks.md).
 */
export function createWebhookFastPath(
  options: WebhookRouterOptions & { logger: Logger },
  admit: WebhookAdmission | undefined,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const limit = parseLimit(options.limit ?? defaultBodyLimit);
  return (req, res) => {
    if (limit === undefined || req.method !== 'POST') return false;
    const params = webhookParams(req.url ?? '');
    if (!params || !plainBody(req)) return false;
    const [location, secret] = params;
    if (admit && !admit(res)) return true;
    if (!knownSecret(options, location, secret)) {
      writeJson(res, 404, { error: 'not found' });
      return true;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      writeJson(res, 413, { status: 413, message: 'request entity too large' });
      return true;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      length += chunk.length;
      if (length > limit) {
        over = true;
        writeJson(res, 413, { status: 413, message: 'request entity too large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      let raw = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length)).toString('utf8');
      // body-parser's decoder drops a leading byte order mark: so does this path.
      if (raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
      void notify(options, location, raw, res);
    });
    // A client that goes away mid-body: nothing to answer, nothing stored.
    req.on('error', () => {});
    return true;
  };
}

async function notify(
  options: WebhookRouterOptions & { logger: Logger },
  location: string,
  raw: string,
  res: ServerResponse,
): Promise<void> {
  try {
    const result = await receiveNotification(options, location, raw);
    writeJson(res, result.status, result);
  } catch (error) {
    options.logger.error({ err: error }, 'request failed');
    writeJson(res, 500, { error: 'internal error' });
  }
}

/**
 * A JSON answer as Express's `res.status(status).json(body)` writes it, headers set before with
 * `setHeader` included (`writeHead` merges them). Nothing when the answer is gone already.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  // A flat list of raw headers: no header map to build and check for one answer.
  res.writeHead(status, [
    'content-type',
    'application/json; charset=utf-8',
    'content-length',
    String(Buffer.byteLength(json)),
  ]);
  res.end(json);
}

const webhookPath = /^\/webhooks\/([^/?#]+)\/([^/?#]+)\/?(?:\?.*)?$/;

/** The location and the secret of a webhook path, decoded as Express decodes them. */
function webhookParams(url: string): [string, string] | undefined {
  const match = webhookPath.exec(url);
  if (!match) return undefined;
  try {
    return [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
  } catch {
    return undefined;
  }
}

/** No content encoding, and UTF-8 or no charset: what the fast path decodes as body-parser would. */
function plainBody(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'];
  if (type === undefined || !type.includes('charset')) return true;
  return /;\s*charset\s*=\s*"?utf-8"?\s*(;|$)/i.test(type);
}

/** `256kb`, `1mb`, `1024`: body-parser's limit notation (1 kb = 1,024 bytes). */
export function parseLimit(limit: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) return undefined;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[
    (match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'
  ];
  return Math.floor(Number(match[1]) * unit);
}
