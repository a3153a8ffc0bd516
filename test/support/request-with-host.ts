import { request } from 'node:http';

export interface HostAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  body: any;
}

/**
 * One HTTP request to `url` carrying the `Host` header `host`, as a web page reached by DNS
 * rebinding sends it (the connection still goes to the URL's address). JSON in, JSON out.
 */
export function requestWithHost(
  url: string,
  host: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HostAnswer> {
  const target = new URL(url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          host,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON (the dev phone's page): the text as it came.
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
