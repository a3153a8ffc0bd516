import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Clock } from '../../../src/scheduler/clock.ts';

/** A `POST /sms` that went through the proxy. */
export interface ProxiedSms {
  /** Its order among the `POST /sms` the proxy saw, from 1. */
  index: number;
  to: string;
  /** replyflow's clock when the request reached the proxy (before `onSms` ran). */
  clockAt: number;
  /** The service's answer. */
  status: number;
}

export interface SmsProxy {
  /** `http://127.0.0.1:PORT`: the service's base URL is this plus the emulator's path (`/v1`). */
  url: string;
  /** Every `POST /sms`, in the order they arrived. */
  readonly sms: readonly ProxiedSms[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of the emulator that writes down each `POST /sms` with replyflow's
 * clock at the moment it arrives, and lets a test act on it (`onSms`, e.g. move the clock)
 * before it is forwarded: a test sees, on replyflow's own clock, when each SMS left.
 */
export async function startSmsProxy(
  target: string,
  options: { clock: Clock; onSms?: (sms: Omit<ProxiedSms, 'status'>) => void },
): Promise<SmsProxy> {
  const sms: ProxiedSms[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const isSms = req.method === 'POST' && /\/sms$/.test(req.url ?? '');
      let entry: ProxiedSms | undefined;
      if (isSms) {
        const to = String((JSON.parse(body.toString('utf8')) as { to?: unknown }).to ?? '');
        entry = { index: sms.length + 1, to, clockAt: options.clock.now(), status: 0 };
        sms.push(entry);
        options.onSms?.(entry);
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) {
          continue;
        }
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 && { body }),
      });
      const text = Buffer.from(await answer.arrayBuffer());
      if (entry) entry.status = answer.status;
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (
          !['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name)
        ) {
          out[name] = value;
        }
      });
      res.writeHead(answer.status, { ...out, 'content-length': String(text.length) });
      res.end(text);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    sms,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
